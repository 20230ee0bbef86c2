//! Owner-only access lists on Windows: a protected DACL with one entry, full control for the
//! user this process runs as. Reading one back describes it as [`AclEntry`]s for the rule in
//! `acl`, which decides.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::io;
use std::os::windows::ffi::OsStrExt as _;
use std::path::Path;
use std::ptr;

use super::acl::{self, AceKind, AclEntry, NotOwnerOnly};

use windows_sys::Win32::Foundation::{CloseHandle, ERROR_SUCCESS, HANDLE, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, GetNamedSecurityInfoW, SE_FILE_OBJECT, SetNamedSecurityInfoW,
};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_REVISION, AddAccessAllowedAceEx,
    CONTAINER_INHERIT_ACE, DACL_SECURITY_INFORMATION, GetAce, GetLengthSid, GetTokenInformation,
    INHERITED_ACE, InitializeAcl, OBJECT_INHERIT_ACE, PROTECTED_DACL_SECURITY_INFORMATION,
    PSECURITY_DESCRIPTOR, TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::FILE_ALL_ACCESS;
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

/// The current user's `TOKEN_USER`, in a buffer that keeps its SID alive.
struct CurrentUser {
    buffer: Vec<u64>,
}

impl CurrentUser {
    fn get() -> io::Result<Self> {
        let mut token: HANDLE = ptr::null_mut();
        // SAFETY: the pseudo handle of this process needs no closing; `token` is an out pointer.
        if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut needed = 0u32;
        // SAFETY: a size query with no buffer, as the API documents.
        unsafe { GetTokenInformation(token, TokenUser, ptr::null_mut(), 0, &mut needed) };
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8).max(1)];
        // SAFETY: `buffer` holds at least `needed` bytes, aligned for TOKEN_USER.
        let ok = unsafe {
            GetTokenInformation(
                token,
                TokenUser,
                buffer.as_mut_ptr().cast(),
                needed,
                &mut needed,
            )
        };
        let error = io::Error::last_os_error();
        // SAFETY: `token` was opened above and is closed once.
        unsafe { CloseHandle(token) };
        if ok == 0 {
            return Err(error);
        }
        Ok(Self { buffer })
    }

    fn sid(&self) -> *mut c_void {
        // SAFETY: the buffer was filled with a TOKEN_USER by GetTokenInformation.
        unsafe { (*self.buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid }
    }
}

fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain([0]).collect()
}

/// Replaces the access list of `path` with one entry: full control for the current user, not
/// inherited from the parent, and (for a folder) inherited by what is created inside.
pub(super) fn set_owner_only(path: &Path, folder: bool) -> io::Result<()> {
    let user = CurrentUser::get()?;
    let sid = user.sid();
    // SAFETY: `sid` points into `user`, alive for this function.
    let sid_len = unsafe { GetLengthSid(sid) } as usize;
    let acl_len = size_of::<ACL>() + size_of::<ACCESS_ALLOWED_ACE>() + sid_len;
    let mut acl_buffer = vec![0u64; acl_len.div_ceil(8)];
    let acl = acl_buffer.as_mut_ptr().cast::<ACL>();
    let flags = if folder {
        OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE
    } else {
        0
    };
    let acl_len = u32::try_from(acl_len).map_err(io::Error::other)?;
    // SAFETY: `acl` points at `acl_len` zeroed bytes, enough for the header and one entry.
    unsafe {
        if InitializeAcl(acl, acl_len, ACL_REVISION) == 0
            || AddAccessAllowedAceEx(acl, ACL_REVISION, flags, FILE_ALL_ACCESS, sid) == 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    let name = wide(path);
    // SAFETY: `name` is NUL-terminated; `acl` is a valid ACL built above.
    let status = unsafe {
        SetNamedSecurityInfoW(
            name.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
            ptr::null_mut(),
            ptr::null_mut(),
            acl,
            ptr::null(),
        )
    };
    if status != ERROR_SUCCESS {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    Ok(())
}

/// The string form (`S-1-5-21-…`) of the SID at `sid`.
fn sid_text(sid: *mut c_void) -> io::Result<String> {
    let mut text: *mut u16 = ptr::null_mut();
    // SAFETY: `sid` points at a valid SID; `text` is an out pointer freed below.
    if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let mut length = 0;
    // SAFETY: on success `text` is a NUL-terminated wide string, read up to its NUL.
    while unsafe { *text.add(length) } != 0 {
        length += 1;
    }
    // SAFETY: `length` characters were just read from `text`.
    let wide = unsafe { std::slice::from_raw_parts(text, length) };
    let string = String::from_utf16_lossy(wide);
    // SAFETY: ConvertSidToStringSidW allocated `text` with LocalAlloc.
    unsafe { LocalFree(text.cast()) };
    Ok(string)
}

/// The entries of `dacl`, described for [`acl::owner_only`]; `None` for a NULL DACL.
///
/// # Safety
/// `dacl` is null or points at a valid access list that outlives the call.
unsafe fn describe(dacl: *mut ACL) -> io::Result<Option<Vec<AclEntry>>> {
    if dacl.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller guarantees `dacl` is a valid list.
    let count = u32::from(unsafe { (*dacl).AceCount });
    let mut entries = Vec::with_capacity(count as usize);
    for index in 0..count {
        let mut ace: *mut c_void = ptr::null_mut();
        // SAFETY: `index` is below the list's count; `ace` is an out pointer.
        if unsafe { GetAce(dacl, index, &mut ace) } == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: every entry starts with an ACE_HEADER, followed by its access mask.
        let (header, mask) = unsafe {
            (
                ace.cast::<ACE_HEADER>().read_unaligned(),
                ace.cast::<u8>()
                    .add(size_of::<ACE_HEADER>())
                    .cast::<u32>()
                    .read_unaligned(),
            )
        };
        let sid = if AceKind::sid_follows_mask(header.AceType) {
            // SAFETY: in these types the SID starts right after the header and the mask.
            let start = unsafe { ace.cast::<u8>().add(size_of::<ACE_HEADER>() + 4) };
            Some(sid_text(start.cast())?)
        } else {
            None
        };
        entries.push(AclEntry {
            kind: AceKind::from_type(header.AceType),
            sid,
            mask,
            inherited: u32::from(header.AceFlags) & INHERITED_ACE != 0,
        });
    }
    Ok(Some(entries))
}

/// Whether the access list of `path` lets the current user alone in ([`acl::owner_only`]).
pub(super) fn owner_only(path: &Path) -> io::Result<Result<(), NotOwnerOnly>> {
    let user = CurrentUser::get()?;
    let owner = sid_text(user.sid())?;
    let name = wide(path);
    let mut dacl: *mut ACL = ptr::null_mut();
    let mut descriptor: PSECURITY_DESCRIPTOR = ptr::null_mut();
    // SAFETY: `name` is NUL-terminated; the out pointers are valid; `descriptor` is freed below.
    let status = unsafe {
        GetNamedSecurityInfoW(
            name.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            ptr::null_mut(),
            ptr::null_mut(),
            &mut dacl,
            ptr::null_mut(),
            &mut descriptor,
        )
    };
    if status != ERROR_SUCCESS {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    // SAFETY: `dacl` is null or points into `descriptor`, alive until LocalFree below.
    let entries = unsafe { describe(dacl) };
    // SAFETY: `descriptor` was allocated by GetNamedSecurityInfoW.
    unsafe { LocalFree(descriptor) };
    Ok(acl::owner_only(&owner, entries?.as_deref()))
}
