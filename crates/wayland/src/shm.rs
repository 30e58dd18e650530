//! Shared-memory buffers the compositor copies screen pixels into: a memfd, mapped read-only here,
//! wrapped in a `wl_shm_pool` and a `wl_buffer` of one size and format. Kept and reused while the
//! output's size stays the same, so a capture allocates nothing.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;

use wayland_client::protocol::{wl_buffer, wl_shm, wl_shm_pool};
use wayland_client::{Dispatch, QueueHandle};

use crate::error::WaylandError;

/// What the compositor asked for: the buffer a screencopy frame wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BufferSpec {
    pub format: wl_shm::Format,
    pub width: u32,
    pub height: u32,
    pub stride: u32,
}

impl BufferSpec {
    pub(crate) fn len(&self) -> usize {
        self.stride as usize * self.height as usize
    }
}

/// One shared buffer. See the [module docs](self).
pub(crate) struct ShmBuffer {
    pub spec: BufferSpec,
    pub buffer: wl_buffer::WlBuffer,
    pool: wl_shm_pool::WlShmPool,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is owned by this struct alone; the compositor writes into it only during a copy
// the owner waits for, and the owner reads it only after.
unsafe impl Send for ShmBuffer {}

impl ShmBuffer {
    pub(crate) fn new<S>(shm: &wl_shm::WlShm, spec: BufferSpec, qh: &QueueHandle<S>) -> Result<ShmBuffer, WaylandError>
    where
        S: Dispatch<wl_shm_pool::WlShmPool, ()> + Dispatch<wl_buffer::WlBuffer, ()> + 'static,
    {
        let len = spec.len().max(4);
        let size = i32::try_from(len).map_err(|_| WaylandError::Other(format!("a {len}-byte buffer is too large")))?;
        // SAFETY: plain syscalls on a fresh fd we own; the mapping is checked before use and unmapped by
        // Drop (or right here on error).
        let (fd, ptr) = unsafe {
            let raw = libc::memfd_create(c"handrail-screencopy".as_ptr(), libc::MFD_CLOEXEC);
            if raw < 0 {
                return Err(WaylandError::os("memfd_create"));
            }
            let fd = OwnedFd::from_raw_fd(raw);
            if libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) != 0 {
                return Err(WaylandError::os("ftruncate of the screencopy buffer"));
            }
            let p = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, fd.as_raw_fd(), 0);
            if p == libc::MAP_FAILED {
                return Err(WaylandError::os("mmap of the screencopy buffer"));
            }
            (fd, NonNull::new_unchecked(p.cast::<u8>()))
        };
        let pool = shm.create_pool(fd.as_fd(), size, qh, ());
        let buffer =
            pool.create_buffer(0, spec.width as i32, spec.height as i32, spec.stride as i32, spec.format, qh, ());
        // The pool keeps its own reference to the memory; our fd can go.
        drop(fd);
        Ok(ShmBuffer { spec, buffer, pool, ptr, len })
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The buffer's pixels as tightly packed BGRX rows, top row first.
    pub(crate) fn to_bgrx(&self, y_invert: bool) -> Result<Vec<u8>, WaylandError> {
        let BufferSpec { format, width, height, stride } = self.spec;
        let swap = match format {
            // Little-endian XRGB8888 is B, G, R, X in memory: the frame's own layout.
            wl_shm::Format::Xrgb8888 | wl_shm::Format::Argb8888 => false,
            wl_shm::Format::Xbgr8888 | wl_shm::Format::Abgr8888 => true,
            other => return Err(WaylandError::Other(format!("screencopy offered pixel format {other:?}"))),
        };
        let row_len = width as usize * 4;
        let bytes = self.bytes();
        let mut out = Vec::with_capacity(row_len * height as usize);
        for y in 0..height as usize {
            let src_y = if y_invert { height as usize - 1 - y } else { y };
            let start = src_y * stride as usize;
            let row = bytes
                .get(start..start + row_len)
                .ok_or_else(|| WaylandError::Other("a screencopy buffer shorter than its rows".into()))?;
            if swap {
                for px in row.chunks_exact(4) {
                    out.extend_from_slice(&[px[2], px[1], px[0], px[3]]);
                }
            } else {
                out.extend_from_slice(row);
            }
        }
        Ok(out)
    }
}

impl Drop for ShmBuffer {
    fn drop(&mut self) {
        self.buffer.destroy();
        self.pool.destroy();
        // SAFETY: `ptr`/`len` are exactly what mmap returned; nothing borrows the mapping any more.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}
