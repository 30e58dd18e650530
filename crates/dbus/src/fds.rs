//! Reading a bus socket with the file descriptors that come with its bytes (`SCM_RIGHTS`).

use std::collections::VecDeque;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

/// Descriptors kept for messages not read yet; a peer sending more without messages that claim
/// them loses the oldest (closed), so it cannot exhaust ours.
const MAX_QUEUED: usize = 256;

/// A socket whose reads also collect the descriptors sent with the bytes, in order.
pub(crate) struct FdStream {
    stream: UnixStream,
    queued: VecDeque<OwnedFd>,
}

impl FdStream {
    pub(crate) fn new(stream: UnixStream) -> FdStream {
        FdStream { stream, queued: VecDeque::new() }
    }

    /// The next `n` descriptors received (fewer when fewer came).
    pub(crate) fn take_fds(&mut self, n: u32) -> Vec<OwnedFd> {
        let n = (n as usize).min(self.queued.len());
        self.queued.drain(..n).collect()
    }
}

impl Read for FdStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Room for 64 descriptors in one read (a message rarely has more than one).
        let mut control = [0u64; 40];
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
        loop {
            // SAFETY: a zeroed msghdr is valid; it points at `iov` and `control`, which outlive the call.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = std::mem::size_of_val(&control) as _;
            // SAFETY: recvmsg on our socket with the buffers set up above.
            let n = unsafe { libc::recvmsg(self.stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            self.collect(&msg);
            return Ok(n as usize);
        }
    }
}

impl FdStream {
    fn collect(&mut self, msg: &libc::msghdr) {
        if msg.msg_flags & libc::MSG_CTRUNC != 0 {
            log::warn!("a bus message carried more file descriptors than handrail takes; the rest were closed");
        }
        // SAFETY: the CMSG_* walk stays inside the control buffer recvmsg filled in (msg_controllen).
        let mut c = unsafe { libc::CMSG_FIRSTHDR(msg) };
        while !c.is_null() {
            // SAFETY: `c` points at a complete cmsghdr inside the buffer.
            let h = unsafe { &*c };
            if h.cmsg_level == libc::SOL_SOCKET && h.cmsg_type == libc::SCM_RIGHTS {
                // SAFETY: CMSG_LEN(0) is the header's size; the data follows it.
                let data_len = h.cmsg_len as usize - unsafe { libc::CMSG_LEN(0) } as usize;
                // SAFETY: as above.
                let data = unsafe { libc::CMSG_DATA(c) };
                for i in 0..data_len / std::mem::size_of::<libc::c_int>() {
                    // SAFETY: `i` indexes the descriptors inside the data; unaligned reads are allowed.
                    let raw = unsafe { std::ptr::read_unaligned(data.cast::<libc::c_int>().add(i)) };
                    // SAFETY: the kernel just installed `raw` in our table for us; nobody else owns it.
                    self.queued.push_back(unsafe { OwnedFd::from_raw_fd(raw) });
                    if self.queued.len() > MAX_QUEUED {
                        self.queued.pop_front();
                    }
                }
            }
            // SAFETY: as above.
            c = unsafe { libc::CMSG_NXTHDR(msg, c) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    /// Sends `bytes` with `fds` over `s` (the peer's side of a socket pair).
    fn send_with(s: &UnixStream, bytes: &[u8], fds: &[&OwnedFd]) {
        let raw: Vec<libc::c_int> = fds.iter().map(|f| f.as_fd().as_raw_fd()).collect();
        let mut control = [0u64; 40];
        let mut iov = libc::iovec { iov_base: bytes.as_ptr() as *mut _, iov_len: bytes.len() };
        // SAFETY: a sendmsg with one SCM_RIGHTS control message built in `control`.
        unsafe {
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            let space = libc::CMSG_SPACE((raw.len() * 4) as u32) as usize;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = space as _;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN((raw.len() * 4) as u32) as _;
            std::ptr::copy_nonoverlapping(raw.as_ptr(), libc::CMSG_DATA(c).cast(), raw.len());
            assert!(libc::sendmsg(s.as_raw_fd(), &msg, 0) >= 0, "sendmsg");
        }
    }

    #[test]
    fn descriptors_arrive_in_order_with_their_bytes() {
        let (ours, theirs) = UnixStream::pair().expect("pair");
        let mut r = FdStream::new(ours);
        let (mut a_r, mut a_w) = UnixStream::pair().expect("a");
        let (mut b_r, mut b_w) = UnixStream::pair().expect("b");
        send_with(&theirs, b"one", &[&OwnedFd::from(a_r.try_clone().expect("clone"))]);
        send_with(&theirs, b"two", &[&OwnedFd::from(b_r.try_clone().expect("clone"))]);
        let mut got = [0u8; 3];
        r.read_exact(&mut got).expect("read");
        r.read_exact(&mut got).expect("read");
        let mut fds = r.take_fds(5);
        assert_eq!(fds.len(), 2, "two came, five asked");
        // Each received descriptor is the socket sent: writing into it reaches its peer.
        for (fd, (peer, word)) in fds.drain(..).zip([(&mut a_w, b"A"), (&mut b_w, b"B")]) {
            UnixStream::from(fd).write_all(word).expect("write");
            let mut one = [0u8; 1];
            peer.read_exact(&mut one).expect("peer reads");
            assert_eq!(&one, word);
        }
        let _ = (&mut a_r, &mut b_r);
    }
}
