//! C++ `operator new` / `operator delete` for the wasm32-wasip1-threads build. meshoptimizer
//! (C++, vendored by the meshopt crate) allocates through them by default, and that target has
//! no C++ runtime to provide them; the native build gets them from libstdc++. They forward to
//! the WASI libc allocator Rust already links. The throwing `new` aborts on exhaustion, as a
//! C++ runtime built without exceptions does.
use std::ffi::c_void;

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// `operator new(size_t)`
#[no_mangle]
pub extern "C" fn _Znwm(size: usize) -> *mut c_void {
    // SAFETY: malloc accepts any size; zero is bumped to one so each allocation is distinct.
    let ptr = unsafe { malloc(size.max(1)) };
    if ptr.is_null() {
        std::process::abort();
    }
    ptr
}

/// `operator new[](size_t)`
#[no_mangle]
pub extern "C" fn _Znam(size: usize) -> *mut c_void {
    _Znwm(size)
}

/// `operator delete(void*)`
#[no_mangle]
pub extern "C" fn _ZdlPv(ptr: *mut c_void) {
    // SAFETY: ptr came from _Znwm / _Znam (malloc) or is null, which free ignores.
    unsafe { free(ptr) }
}

/// `operator delete[](void*)`
#[no_mangle]
pub extern "C" fn _ZdaPv(ptr: *mut c_void) {
    _ZdlPv(ptr)
}
