//! Owner-only access lists on Windows: a protected DACL with one entry, full control for the
//! user this process runs as.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::io;
use std::os::windows::ffi::OsStrExt as _;
use std::path::Path;
use std::ptr;

use windows_sys::Win32::Foundation::{CloseHandle, ERROR_SUCCESS, HANDLE, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    GetNamedSecurityInfoW, SE_FILE_OBJECT, SetNamedSecurityInfoW,
};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_REVISION, AddAccessAllowedAceEx,
    CONTAINER_INHERIT_ACE, DACL_SECURITY_INFORMATION, EqualSid, GetAce, GetLengthSid,
    GetTokenInformation, InitializeAcl, OBJECT_INHERIT_ACE, PROTECTED_DACL_SECURITY_INFORMATION,
    PSECURITY_DESCRIPTOR, TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::FILE_ALL_ACCESS;
use windows_sys::Win32::System::SystemServices::ACCESS_ALLOWED_ACE_TYPE;
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

/// Whether every entry of the access list of `path` allows the current user alone.
pub(super) fn is_owner_only(path: &Path) -> io::Result<bool> {
    let user = CurrentUser::get()?;
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
    // A missing DACL grants everyone everything.
    let mut private = !dacl.is_null();
    if private {
        // SAFETY: `dacl` points into `descriptor`, alive until LocalFree below.
        let count = u32::from(unsafe { (*dacl).AceCount });
        for index in 0..count {
            let mut ace: *mut c_void = ptr::null_mut();
            // SAFETY: `index` is below the list's count; `ace` is an out pointer.
            if unsafe { GetAce(dacl, index, &mut ace) } == 0 {
                private = false;
                break;
            }
            // SAFETY: every entry starts with an ACE_HEADER.
            let header = unsafe { *ace.cast::<ACE_HEADER>() };
            if u32::from(header.AceType) != ACCESS_ALLOWED_ACE_TYPE {
                // A deny entry takes nothing away from privacy; anything else is unexpected.
                continue;
            }
            let allowed = ace.cast::<ACCESS_ALLOWED_ACE>();
            // SAFETY: an allowed entry's SID starts at its SidStart field.
            let sid = unsafe { ptr::addr_of_mut!((*allowed).SidStart) }.cast::<c_void>();
            // SAFETY: both SIDs are valid for the duration of the call.
            if unsafe { EqualSid(sid, user.sid()) } == 0 {
                private = false;
                break;
            }
        }
    }
    // SAFETY: `descriptor` was allocated by GetNamedSecurityInfoW.
    unsafe { LocalFree(descriptor) };
    Ok(private)
}
