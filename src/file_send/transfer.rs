//! One file response on the wire: the HTTP head with send(2), then a file
//! range with sendfile(2), both on a non-blocking socket, stopping when the
//! socket is full. It works on the caller's descriptors while the caller
//! guarantees them (inside one synchronous call from JS, where nothing can
//! close them). A transfer that has to wait first takes an owned duplicate of
//! the socket (`own`): Node may close its socket descriptor at any time (a
//! reset, a timeout, `destroy()`), and a number reused by the next accepted
//! connection must never receive a byte of this transfer. The file stays the
//! caller's descriptor: the JS side holds its stream, and every way the stream
//! closes its file (`destroy()`, `close()`, autoClose at the end) aborts the
//! transfer first. So a waiting transfer holds one descriptor more than
//! stock's socket and file, and none when the process is short of them.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

/// At most this many file bytes go out in one `pump`, so one transfer to a
/// fast reader cannot hold the event loop for a whole large file: after a
/// burst the caller waits for writability (immediate when the socket has room),
/// letting other sockets run in between.
pub const BURST_BYTES: u64 = 4 << 20;

/// A file up to this size goes out in one send(2) with its head (read
/// behind it), as stock Node writes a file that fits in one 64 KiB read: the
/// head and the chunk in one writev.
pub const INLINE_BYTES: u64 = 64 << 10;

/// What stopped a `pump`.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Step {
    /// The head and the whole range (or the file up to its end) are sent.
    Done,
    /// The socket is full, or a burst ended: call `pump` again once writable.
    WouldBlock,
    /// send/sendfile failed with this errno (EPIPE, ECONNRESET, EIO...).
    Failed(i32),
}

/// Why a transfer was not started (nothing was sent).
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a regular file with a size (a FIFO, a device, a /proc file):
    /// sendfile cannot read it, or its end is not known in advance.
    NotRegular,
    /// The bytes from the position to the end of the file are not the
    /// length the response announced.
    LengthMismatch,
    /// dup/fstat/lseek failed with this errno.
    Os(i32),
}

pub struct Transfer {
    /// The socket written (the caller's descriptor until `own`, then
    /// `owned`'s) and the file read (always the caller's).
    sock: RawFd,
    file: RawFd,
    /// The socket's duplicate, for a transfer that outlives the caller's call.
    owned: Option<OwnedFd>,
    /// The HTTP head, then (for a small file) the file's bytes.
    head: Vec<u8>,
    /// How much of `head` is the HTTP head itself.
    head_len: usize,
    head_sent: usize,
    /// Where the next file byte is read; `None` reads at (and advances) the
    /// file's own offset, as `fs.read` with a null position does.
    position: Option<i64>,
    /// File bytes still to send of a bounded range; `None` sends up to the
    /// end of the file.
    remaining: Option<u64>,
    /// To the end of the file: the bytes fstat says are left. They are sent
    /// with exact counts, then one more sendfile finds the end (as Node's
    /// last read returning 0 does), in case the file grew.
    known: u64,
    /// The last write may have left a partial segment held back by MSG_MORE
    /// (the head) or by the kernel's SPLICE_F_MORE (a sendfile that got fewer
    /// bytes than asked, at an end of file that came early).
    tail_held: bool,
    /// Bytes written to the socket so far (head and file).
    pub socket_bytes: u64,
    /// File bytes written so far.
    pub file_bytes: u64,
}

fn dup(fd: RawFd) -> Result<OwnedFd, Refused> {
    if fd < 0 {
        return Err(Refused::Os(libc::EBADF));
    }
    // SAFETY: called while the caller guarantees the descriptor is open (see
    // the module comment); borrowing it for the dup is sound.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    borrowed.try_clone_to_owned().map_err(|e| Refused::Os(e.raw_os_error().unwrap_or(libc::EBADF)))
}

/// Descriptors a duplicate must leave free below the process's limit: a
/// transfer that waits costs one descriptor more than stock, and near the
/// limit that one is what the next accept() or open() of the app would need.
/// Without that room the duplicate is given back, and the transfer carries
/// on with Node's own reads and writes instead.
fn headroom(limit: u64) -> u64 {
    (limit / 8).clamp(16, 1024)
}

/// RLIMIT_NOFILE's soft limit (u64::MAX when unlimited or unknown).
fn descriptor_limit() -> u64 {
    // SAFETY: getrlimit fills a zeroed struct; failure leaves it untouched.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return u64::MAX;
    }
    lim.rlim_cur as u64
}

/// Whether a process whose lowest free descriptor was `lowest_free` has
/// `headroom` descriptors to spare below `limit`. Linux hands out the lowest
/// free number, so every descriptor below it is open: a number that close to
/// the limit settles it at no cost. Below, the table can still have holes
/// under descriptors open higher up, so past half the limit the open ones
/// are counted (a directory read of /proc/self/fd, only for a transfer that
/// has to wait in a process using half its descriptors).
fn can_spare(lowest_free: u64, limit: u64, open_count: impl FnOnce() -> Option<u64>) -> bool {
    let room = headroom(limit);
    if lowest_free.saturating_add(room) >= limit {
        return false;
    }
    if lowest_free < limit / 2 {
        return true;
    }
    open_count().is_none_or(|open| open.saturating_add(room) < limit)
}

/// Descriptors open in this process (the directory's own one included).
fn open_descriptors() -> Option<u64> {
    std::fs::read_dir("/proc/self/fd").ok().map(|dir| dir.count() as u64)
}

/// A duplicate of the socket that leaves the process its headroom.
fn dup_with_headroom(fd: RawFd) -> Result<OwnedFd, Refused> {
    let owned = dup(fd)?;
    if !can_spare(owned.as_raw_fd() as u64, descriptor_limit(), open_descriptors) {
        return Err(Refused::Os(libc::EMFILE)); // `owned` closes here
    }
    Ok(owned)
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

/// Bytes from `position` (or the file's offset) to the end of a regular file.
fn bytes_left(file: RawFd, position: Option<i64>) -> Result<u64, Refused> {
    // SAFETY: fstat fills a zeroed stat struct; an invalid descriptor only
    // makes it fail with EBADF.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(file, &mut st) } != 0 {
        return Err(Refused::Os(errno()));
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_size <= 0 {
        return Err(Refused::NotRegular);
    }
    let at = match position {
        Some(p) => p,
        // SAFETY: lseek with SEEK_CUR and 0 only reads the offset.
        None => unsafe { libc::lseek(file, 0, libc::SEEK_CUR) },
    };
    if at < 0 {
        return Err(Refused::Os(errno()));
    }
    Ok((st.st_size as u64).saturating_sub(at as u64))
}

impl Transfer {
    /// Checks the file: `length` bounds the range (`None`: to the end of the
    /// file); `expected`, when given, is the Content-Length the bytes to the
    /// end of the file must equal. The head is set later (`set_head`), once
    /// the file is known to be sendable. The descriptors stay the caller's.
    pub fn new(sock_fd: RawFd, file_fd: RawFd, position: Option<i64>, length: Option<u64>, expected: Option<u64>) -> Result<Transfer, Refused> {
        if sock_fd < 0 || file_fd < 0 {
            return Err(Refused::Os(libc::EBADF));
        }
        let left = bytes_left(file_fd, position)?;
        let known = match length {
            Some(n) => n.min(left),
            None => left,
        };
        if length.is_none() && expected.is_some_and(|e| e != left) {
            return Err(Refused::LengthMismatch);
        }
        Ok(Transfer {
            sock: sock_fd,
            file: file_fd,
            owned: None,
            head: Vec::new(),
            head_len: 0,
            head_sent: 0,
            position,
            remaining: length,
            known,
            tail_held: false,
            socket_bytes: 0,
            file_bytes: 0,
        })
    }

    /// The bytes to send before the file (the HTTP head). A file of at most
    /// `INLINE_BYTES` is read behind it here, to leave in one send(2).
    /// Err(errno) when that read fails before any byte (nothing was sent).
    pub fn set_head(&mut self, head: &[u8]) -> Result<(), i32> {
        self.head.clear();
        self.head.extend_from_slice(head);
        self.head_len = head.len();
        self.head_sent = 0;
        if self.known == 0 || self.known > INLINE_BYTES {
            return Ok(());
        }
        let want = self.known as usize;
        self.head.resize(self.head_len + want, 0);
        let mut got = 0;
        while got < want {
            let buf = &mut self.head[self.head_len + got..];
            let n = match self.position {
                // SAFETY: `buf` is a live, writable slice of `buf.len()` bytes; the
                // file descriptor is open (the caller's, during its call).
                Some(p) => unsafe { libc::pread(self.file, buf.as_mut_ptr().cast(), buf.len(), p + got as i64) },
                // SAFETY: as above; reads at (and advances) the file's offset.
                None => unsafe { libc::read(self.file, buf.as_mut_ptr().cast(), buf.len()) },
            };
            if n < 0 {
                let e = errno();
                if e == libc::EINTR {
                    continue;
                }
                if got == 0 {
                    self.head.truncate(self.head_len);
                    return Err(e);
                }
                break; // send what was read; sendfile meets the error next
            }
            if n == 0 {
                break; // the file shrank: the rest is looked for by sendfile
            }
            got += n as usize;
        }
        self.head.truncate(self.head_len + got);
        if let Some(p) = self.position.as_mut() {
            *p += got as i64;
        }
        self.known -= got as u64;
        if let Some(left) = self.remaining.as_mut() {
            *left -= got as u64;
        }
        Ok(())
    }

    /// Switches to an owned duplicate of the socket, for a transfer that
    /// continues after the caller's call returns. Fails (nothing changes)
    /// when the process cannot spare the descriptor.
    pub fn own(&mut self) -> Result<(), Refused> {
        if self.owned.is_none() {
            crate::file_send::fail_point::check(crate::file_send::fail_point::DUP).map_err(Refused::Os)?;
            let sock = dup_with_headroom(self.sock)?;
            self.sock = sock.as_raw_fd();
            self.owned = Some(sock);
        }
        Ok(())
    }

    /// Ends a transfer that stopped before its end (it could not wait), so
    /// Node's own reads and writes carry on from exactly where it is: file
    /// bytes read behind the head but not sent are put back (the position,
    /// or the file's own offset, moves back over them). Returns how many
    /// bytes of the HTTP head itself were not sent.
    pub fn give_back(&mut self) -> usize {
        let head_sent = self.head_sent.min(self.head_len);
        let unsent_file = (self.head.len() - self.head_len).saturating_sub(self.head_sent.saturating_sub(self.head_len)) as i64;
        if unsent_file > 0 {
            match self.position.as_mut() {
                Some(p) => *p -= unsent_file,
                // SAFETY: lseek on the caller's open file only moves its offset.
                None => unsafe {
                    libc::lseek(self.file, -unsent_file, libc::SEEK_CUR);
                },
            }
        }
        self.head.truncate(self.head_sent);
        self.head_len - head_sent
    }

    /// The socket descriptor written (what a poll handle watches, once owned).
    pub fn socket_fd(&self) -> RawFd {
        self.sock
    }

    /// Sends as much as the socket takes, up to one burst of file bytes.
    pub fn pump(&mut self) -> Step {
        let mut burst: u64 = 0;
        loop {
            if self.head_sent < self.head.len() {
                // MSG_MORE when file bytes follow by sendfile: the head leaves
                // in one segment with the first of them.
                let more = if self.known > 0 { libc::MSG_MORE } else { 0 };
                let rest = &self.head[self.head_sent..];
                // SAFETY: `rest` is a live slice of `rest.len()` bytes; the
                // socket descriptor is open (the caller's during its call, or ours).
                let n = unsafe { libc::send(self.sock, rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL | more) };
                if n < 0 {
                    match errno() {
                        libc::EINTR => continue,
                        libc::EAGAIN => return Step::WouldBlock,
                        e => return Step::Failed(e),
                    }
                }
                let before = self.head_sent;
                self.head_sent += n as usize;
                self.socket_bytes += n as u64;
                // File bytes read behind the head count as sent file bytes.
                self.file_bytes += (self.head_sent.saturating_sub(self.head_len) - before.saturating_sub(self.head_len)) as u64;
                self.tail_held = more != 0;
                continue;
            }
            if self.remaining == Some(0) {
                return self.done();
            }
            if burst >= BURST_BYTES {
                return Step::WouldBlock;
            }
            let want = match self.remaining {
                Some(n) => n,
                None if self.known > 0 => self.known,
                None => BURST_BYTES,
            };
            let count = want.min(BURST_BYTES - burst);
            let n = match self.position.as_mut() {
                // SAFETY: both descriptors are open (as for send above); `offset`
                // points to a live i64 (off_t is i64 on the 64-bit Linux targets built).
                Some(offset) => unsafe { libc::sendfile(self.sock, self.file, offset as *mut i64, count as usize) },
                // SAFETY: as above; a null offset makes the kernel use and
                // advance the file's own offset.
                None => unsafe { libc::sendfile(self.sock, self.file, std::ptr::null_mut(), count as usize) },
            };
            if n < 0 {
                match errno() {
                    libc::EINTR => continue,
                    libc::EAGAIN => return Step::WouldBlock,
                    e => return Step::Failed(e),
                }
            }
            if n == 0 {
                // End of file (early, for a file that shrank): Node's read
                // returns 0 there and ends the stream.
                return self.done();
            }
            let n = n as u64;
            self.socket_bytes += n;
            self.file_bytes += n;
            self.tail_held = n < count;
            self.known = self.known.saturating_sub(n);
            burst += n;
            if let Some(left) = self.remaining.as_mut() {
                *left -= n;
            }
        }
    }

    fn done(&mut self) -> Step {
        if self.tail_held {
            // Push out a segment the kernel may be holding for more data that
            // will not come: switching TCP_CORK on and off flushes it (no-op
            // on other sockets).
            let on: libc::c_int = 1;
            let off: libc::c_int = 0;
            let size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: setsockopt reads a c_int from live locals; the socket is open.
            unsafe {
                libc::setsockopt(self.sock, libc::IPPROTO_TCP, libc::TCP_CORK, (&on as *const libc::c_int).cast(), size);
                libc::setsockopt(self.sock, libc::IPPROTO_TCP, libc::TCP_CORK, (&off as *const libc::c_int).cast(), size);
            }
            self.tail_held = false;
        }
        Step::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::fd::FromRawFd;

    fn socket_pair() -> (OwnedFd, std::os::unix::net::UnixStream) {
        let mut fds = [0; 2];
        // SAFETY: fds is a valid 2-element array for socketpair to fill.
        let rc = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_NONBLOCK, 0, fds.as_mut_ptr()) };
        assert_eq!(rc, 0);
        // SAFETY: socketpair returned two fresh descriptors that we now own.
        let (a, b) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let reader = std::os::unix::net::UnixStream::from(b);
        reader.set_nonblocking(false).unwrap();
        (a, reader)
    }

    fn temp_file(bytes: &[u8]) -> std::fs::File {
        let path = std::env::temp_dir().join(format!("fastpath-transfer-{}-{}", std::process::id(), bytes.len()));
        let mut f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        f.write_all(bytes).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        f
    }

    fn drive(t: &mut Transfer, reader: &mut std::os::unix::net::UnixStream, expect: usize) -> Vec<u8> {
        let mut got = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let step = t.pump();
            match step {
                Step::Done => break,
                Step::WouldBlock => {
                    let n = reader.read(&mut buf).unwrap();
                    got.extend_from_slice(&buf[..n]);
                }
                Step::Failed(e) => panic!("failed {e}"),
            }
        }
        while got.len() < expect {
            let n = reader.read(&mut buf).unwrap();
            assert!(n > 0);
            got.extend_from_slice(&buf[..n]);
        }
        got
    }

    fn with_head(mut t: Transfer, head: &[u8]) -> Transfer {
        t.set_head(head).unwrap();
        t
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 31 % 251) as u8).collect()
    }

    #[test]
    fn head_then_range_across_a_full_socket() {
        let data = pattern(3 << 20);
        let file = temp_file(&data);
        let (sock, mut reader) = socket_pair();
        let head = b"HTTP/1.1 200 OK\r\ncontent-length: 1000001\r\n\r\n";
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(12345), Some(1_000_001), None).ok().unwrap(), head);
        let got = drive(&mut t, &mut reader, head.len() + 1_000_001);
        let mut want = head.to_vec();
        want.extend_from_slice(&data[12345..12345 + 1_000_001]);
        assert_eq!(got, want);
        assert_eq!(t.file_bytes, 1_000_001);
        assert_eq!(t.socket_bytes, want.len() as u64);
    }

    #[test]
    fn to_end_of_file_from_the_file_offset() {
        let data = pattern(200_000);
        let mut file = temp_file(&data);
        file.seek(SeekFrom::Start(7)).unwrap();
        let (sock, mut reader) = socket_pair();
        let mut t = Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), None, None, Some(data.len() as u64 - 7)).ok().unwrap();
        let got = drive(&mut t, &mut reader, data.len() - 7);
        assert_eq!(got, &data[7..]);
        // The file's own offset advanced, as fs.read with a null position does.
        assert_eq!(file.stream_position().unwrap(), data.len() as u64);
    }

    #[test]
    fn a_small_file_goes_with_its_head_in_one_send() {
        let data = pattern(60_000);
        let mut file = temp_file(&data);
        file.seek(SeekFrom::Start(7)).unwrap();
        let (sock, mut reader) = socket_pair();
        let head = b"HTTP/1.1 200 OK\r\n\r\n";
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), None, None, Some(60_000 - 7)).ok().unwrap(), head);
        // Read behind the head already: the file's offset moved, as Node's read moves it.
        assert_eq!(file.stream_position().unwrap(), 60_000);
        let got = drive(&mut t, &mut reader, head.len() + 60_000 - 7);
        let mut want = head.to_vec();
        want.extend_from_slice(&data[7..]);
        assert_eq!(got, want);
        assert_eq!(t.file_bytes, 60_000 - 7);
        assert_eq!(t.socket_bytes, want.len() as u64);
    }

    #[test]
    fn a_short_file_ends_the_transfer_early() {
        let data = pattern(5000);
        let file = temp_file(&data);
        let (sock, mut reader) = socket_pair();
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(0), Some(9000), None).ok().unwrap(), b"H");
        let got = drive(&mut t, &mut reader, 5001);
        assert_eq!(got.len(), 5001);
        assert_eq!(t.file_bytes, 5000);
    }

    #[test]
    fn the_original_socket_can_be_closed_mid_transfer() {
        let data = pattern(2 << 20);
        let file = temp_file(&data);
        let (sock, mut reader) = socket_pair();
        let mut t = Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(0), Some(data.len() as u64), None).ok().unwrap();
        assert_eq!(t.pump(), Step::WouldBlock);
        t.own().ok().unwrap();
        assert_ne!(t.socket_fd(), sock.as_raw_fd());
        drop(sock);
        let got = drive(&mut t, &mut reader, data.len());
        assert_eq!(got, data);
    }

    /// A socket whose buffer is already full.
    fn full_socket_pair() -> (OwnedFd, std::os::unix::net::UnixStream) {
        let (sock, reader) = socket_pair();
        let junk = [0u8; 4096];
        // SAFETY: writes from a live local buffer to our own non-blocking socket.
        while unsafe { libc::send(sock.as_raw_fd(), junk.as_ptr().cast(), junk.len(), libc::MSG_NOSIGNAL) } > 0 {}
        (sock, reader)
    }

    #[test]
    fn give_back_puts_unsent_inline_bytes_back_at_a_position() {
        let data = pattern(3000);
        let file = temp_file(&data);
        let (sock, _reader) = full_socket_pair();
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(100), None, None).ok().unwrap(), b"HEAD");
        assert_eq!(t.pump(), Step::WouldBlock);
        assert_eq!(t.socket_bytes, 0);
        assert_eq!(t.give_back(), 4);
        assert_eq!(t.position, Some(100));
        assert_eq!(t.file_bytes, 0);
    }

    #[test]
    fn give_back_puts_unsent_inline_bytes_back_at_the_file_offset() {
        let data = pattern(3000);
        let mut file = temp_file(&data);
        file.seek(SeekFrom::Start(10)).unwrap();
        let (sock, _reader) = full_socket_pair();
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), None, None, None).ok().unwrap(), b"HEAD");
        assert_eq!(file.stream_position().unwrap(), 3000);
        assert_eq!(t.pump(), Step::WouldBlock);
        assert_eq!(t.give_back(), 4);
        assert_eq!(file.stream_position().unwrap(), 10);
    }

    #[test]
    fn give_back_after_the_head_went_out_has_nothing_to_put_back() {
        let data = pattern(2 << 20);
        let file = temp_file(&data);
        let (sock, _reader) = socket_pair();
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(0), None, None).ok().unwrap(), b"HEAD");
        assert_eq!(t.pump(), Step::WouldBlock);
        let sent = t.file_bytes;
        assert!(sent > 0);
        assert_eq!(t.give_back(), 0);
        assert_eq!(t.position, Some(sent as i64));
    }

    #[test]
    fn descriptors_are_spared_only_with_headroom_left() {
        let never = || -> Option<u64> { panic!("counted below half the limit") };
        assert!(can_spare(10, 200, never));
        assert!(!can_spare(175, 200, never));
        assert!(can_spare(120, 200, || Some(150)));
        assert!(!can_spare(120, 200, || Some(175)));
        assert!(can_spare(120, 200, || None));
        assert!(can_spare(1 << 20, u64::MAX, never));
        let open = open_descriptors().unwrap();
        assert!(open >= 3, "{open}");
    }

    #[test]
    fn headroom_is_an_eighth_of_the_limit_within_bounds() {
        assert_eq!(headroom(200), 25);
        assert_eq!(headroom(64), 16);
        assert_eq!(headroom(1 << 20), 1024);
        assert_eq!(headroom(u64::MAX), 1024);
    }

    #[test]
    fn a_closed_peer_fails_with_epipe() {
        let data = pattern(1 << 20);
        let file = temp_file(&data);
        let (sock, reader) = socket_pair();
        drop(reader);
        let mut t = with_head(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(0), None, None).ok().unwrap(), b"head");
        assert_eq!(t.pump(), Step::Failed(libc::EPIPE));
    }

    #[test]
    fn bad_descriptors_are_refused() {
        let file = temp_file(b"abc");
        assert_eq!(Transfer::new(-1, file.as_raw_fd(), None, None, None).err(), Some(Refused::Os(libc::EBADF)));
        assert_eq!(Transfer::new(0, -1, None, None, None).err(), Some(Refused::Os(libc::EBADF)));
    }

    #[test]
    fn files_without_a_known_end_and_wrong_lengths_are_refused() {
        let (sock, _reader) = socket_pair();
        let fifo = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(Transfer::new(sock.as_raw_fd(), fifo.as_raw_fd(), None, None, None).err(), Some(Refused::NotRegular));
        let empty = temp_file(b"");
        assert_eq!(Transfer::new(sock.as_raw_fd(), empty.as_raw_fd(), None, None, None).err(), Some(Refused::NotRegular));
        let file = temp_file(&pattern(100));
        assert_eq!(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(10), None, Some(91)).err(), Some(Refused::LengthMismatch));
        assert!(Transfer::new(sock.as_raw_fd(), file.as_raw_fd(), Some(10), None, Some(90)).is_ok());
    }
}
