//! Whether this Windows program runs under Wine, which some checks must know: Wine 8 does not
//! keep the access list a program sets on a file (see `private_fs`).
#![allow(unsafe_code)]

use std::ffi::{c_char, c_void};

#[link(name = "kernel32")]
unsafe extern "system" {
    fn GetModuleHandleW(name: *const u16) -> *mut c_void;
    fn GetProcAddress(module: *mut c_void, name: *const c_char) -> *mut c_void;
}

/// Wine's version when this process runs under Wine (its ntdll exports `wine_get_version`,
/// Windows' does not), `None` on Windows itself.
pub(crate) fn version() -> Option<String> {
    let ntdll: Vec<u16> = "ntdll.dll".encode_utf16().chain([0]).collect();
    // SAFETY: `ntdll` is NUL-terminated; ntdll is loaded in every process and never unloaded.
    let module = unsafe { GetModuleHandleW(ntdll.as_ptr()) };
    if module.is_null() {
        return None;
    }
    // SAFETY: `module` is ntdll's handle and the name is a NUL-terminated C string.
    let export = unsafe { GetProcAddress(module, c"wine_get_version".as_ptr()) };
    if export.is_null() {
        return None;
    }
    // SAFETY: Wine declares it `const char *wine_get_version(void)`, returning a static string.
    let get: extern "C" fn() -> *const c_char = unsafe { std::mem::transmute(export) };
    let text = get();
    if text.is_null() {
        return Some(String::new());
    }
    // SAFETY: a NUL-terminated static string, as above.
    Some(
        unsafe { std::ffi::CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned(),
    )
}

#[cfg(test)]
mod tests {
    /// Under the check script's Wine this must find Wine; on Windows it must not. The script
    /// sets HAILER_EXPECT_WINE=1 when it runs the tests under Wine, so a broken detection fails
    /// there instead of quietly treating Wine as Windows (or Windows as Wine).
    #[test]
    fn finds_wine_exactly_when_expected() {
        let expected = std::env::var_os("HAILER_EXPECT_WINE").is_some_and(|v| v == "1");
        let found = super::version();
        println!("wine_get_version: {found:?}");
        assert_eq!(found.is_some(), expected, "{found:?}");
    }
}
