//! The guard's pipes: newline-delimited lines read with a size cap (an oversize line is discarded as it
//! streams, never held), written in order with one flush per burst, and a byte budget per reader, held by
//! each line it read until that line, or what the guard writes in its place, is written: a peer that stops
//! reading makes the guard stop reading whoever fills its queue, instead of growing the guard's memory.

use std::sync::Arc;
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// One read from a line-oriented pipe.
#[derive(Debug)]
pub enum Read {
    /// A line without its newline (a final line without one counts too).
    Line(Vec<u8>),
    /// A line longer than the cap, discarded unread: its length, and its first and last bytes (up to
    /// [`EDGE_BYTES`] each), from which the session reads its id.
    Oversize {
        length: u64,
        head: Vec<u8>,
        tail: Vec<u8>,
    },
    Eof,
    Failed(std::io::Error),
}

/// How much of each end of an oversize line is kept for the session (its `SNIFF_BYTES`).
pub const EDGE_BYTES: usize = 4096;

/// The last [`EDGE_BYTES`] of `kept` followed by `more`.
fn keep_tail(tail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= EDGE_BYTES {
        tail.clear();
        tail.extend_from_slice(&more[more.len() - EDGE_BYTES..]);
    } else {
        tail.extend_from_slice(more);
        if tail.len() > EDGE_BYTES {
            tail.drain(..tail.len() - EDGE_BYTES);
        }
    }
}

/// Reads a pipe's lines until its end (a stdio client's, a child's stdout), each holding budget from the
/// moment it is read, and sends each read as `wrap` makes it, its end or failure last; stops early once
/// nobody takes them.
pub async fn pump<R, T>(
    reader: R,
    cap: usize,
    budget: Budget,
    tx: mpsc::Sender<T>,
    wrap: impl Fn(Read, Instant, Option<OwnedSemaphorePermit>) -> T,
) where
    R: AsyncRead + Unpin,
{
    let mut reader = LineReader::new(reader);
    loop {
        let read = reader.read_line(cap).await;
        let at = Instant::now();
        let permit = match &read {
            Read::Line(l) => budget.reserve(l.len()).await,
            _ => None,
        };
        let end = matches!(read, Read::Eof | Read::Failed(_));
        if tx.send(wrap(read, at, permit)).await.is_err() || end {
            break;
        }
    }
}

/// How much a reader asks its pipe for at once, and how long a line grows in the reader's own buffer before
/// it is read straight into a buffer of its own.
const CHUNK: usize = 64 * 1024;

/// A pipe read line by line. Short lines are cut from one reused buffer, as a `BufReader` would; a line
/// that outgrows [`CHUNK`] moves to a buffer of its own and the rest of it is read straight into that one
/// (no second copy of a multi-megabyte line, and one read call per pipe-full rather than per chunk); what a
/// read brings past its end goes back to the shared buffer for the next line. The reader keeps nothing of a
/// long line once it is handed out.
pub struct LineReader<R> {
    inner: R,
    /// What was read and not yet handed out is `buf[at..]`.
    buf: Vec<u8>,
    at: usize,
    /// The bytes of `buf[at..]` known to hold no newline.
    scanned: usize,
    /// How much one read asks for (at most [`CHUNK`]; smaller in tests, to cut lines anywhere).
    chunk: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader::with_chunk(inner, CHUNK)
    }

    fn with_chunk(inner: R, chunk: usize) -> Self {
        LineReader {
            inner,
            buf: Vec::with_capacity(chunk),
            at: 0,
            scanned: 0,
            chunk,
        }
    }

    /// Reads one line of at most `cap` bytes; of a longer one, only its ends are kept.
    pub async fn read_line(&mut self, cap: usize) -> Read {
        loop {
            let pending = &self.buf[self.at..];
            if let Some(i) = memchr::memchr(b'\n', &pending[self.scanned..]) {
                let end = self.scanned + i;
                let read = whole_line(&pending[..end], cap);
                self.at += end + 1;
                self.scanned = 0;
                return read;
            }
            self.scanned = pending.len();
            if pending.len() >= self.chunk.min(cap + 1) {
                return self.long_line(cap).await;
            }
            // Room for one more read, the pending start of a line moved to the front first.
            if self.at > 0 {
                self.buf.drain(..self.at);
                self.at = 0;
            }
            self.buf.reserve(self.chunk);
            let n = match self.fill().await {
                Ok(n) => n,
                Err(e) => return Read::Failed(e),
            };
            if n == 0 {
                // The end: a final line without its newline counts too.
                let last = self.buf.split_off(self.at);
                self.buf.clear();
                self.at = 0;
                self.scanned = 0;
                return match last.len() {
                    0 => Read::Eof,
                    _ => whole_line(&last, cap),
                };
            }
        }
    }

    /// Reads into `buf`'s spare room, up to one chunk.
    async fn fill(&mut self) -> std::io::Result<usize> {
        let mut limited = (&mut self.inner).take(self.chunk as u64);
        limited.read_buf(&mut self.buf).await
    }

    /// A line longer than a chunk (or than `cap`) whose start is `buf[at..]`: read on into a buffer of its
    /// own; once longer than `cap`, discarded as it streams, its ends kept.
    async fn long_line(&mut self, cap: usize) -> Read {
        let mut line = self.buf.split_off(self.at);
        self.buf.clear();
        self.at = 0;
        self.scanned = 0;
        while line.len() <= cap {
            let from = line.len();
            // Once its room is spent, the line's room doubles (few moves for a long line); a read fills what
            // room there is, but never past one byte over the cap: more would be reading what is thrown away.
            if line.capacity() - from < self.chunk {
                line.reserve(from.max(self.chunk));
            }
            let want = (line.capacity() - from).min(cap + 1 - from);
            let mut limited = (&mut self.inner).take(want as u64);
            match limited.read_buf(&mut line).await {
                Ok(0) => return Read::Line(line),
                Ok(_) => {}
                Err(e) => return Read::Failed(e),
            }
            if let Some(i) = memchr::memchr(b'\n', &line[from..]) {
                // What the read brought past the line's end starts the next one.
                let end = from + i;
                self.buf.extend_from_slice(&line[end + 1..]);
                line.truncate(end);
                return Read::Line(line);
            }
        }
        let mut length = line.len() as u64;
        let mut head = line[..EDGE_BYTES.min(line.len())].to_vec();
        let mut tail = Vec::with_capacity(EDGE_BYTES);
        keep_tail(&mut tail, &line);
        drop(line);
        loop {
            self.buf.clear();
            self.buf.reserve(self.chunk);
            let n = match self.fill().await {
                Ok(n) => n,
                Err(e) => return Read::Failed(e),
            };
            let newline = memchr::memchr(b'\n', &self.buf);
            let piece = &self.buf[..newline.unwrap_or(n)];
            let room = EDGE_BYTES.saturating_sub(head.len()).min(piece.len());
            head.extend_from_slice(&piece[..room]);
            keep_tail(&mut tail, piece);
            length += piece.len() as u64;
            if let Some(i) = newline {
                self.at = i + 1;
            }
            if n == 0 || newline.is_some() {
                return Read::Oversize { length, head, tail };
            }
        }
    }
}

/// A line read whole: itself, or its ends when it is longer than `cap`.
fn whole_line(line: &[u8], cap: usize) -> Read {
    if line.len() <= cap {
        return Read::Line(line.to_vec());
    }
    let mut tail = Vec::with_capacity(EDGE_BYTES);
    keep_tail(&mut tail, line);
    Read::Oversize {
        length: line.len() as u64,
        head: line[..EDGE_BYTES.min(line.len())].to_vec(),
        tail,
    }
}

/// Bytes a reader may have in flight toward the far writer before it waits.
pub const BUDGET_BYTES: usize = 16 * 1024 * 1024;

/// A byte budget: a reader's, held by each line it read and by what the guard writes because of that line
/// until the writer has written it; or a client stream's (the HTTP front), held by each message waiting for
/// its client to take it.
#[derive(Clone)]
pub struct Budget {
    free: Arc<Semaphore>,
    bytes: usize,
}

impl Budget {
    pub fn new() -> Self {
        Budget::with_bytes(BUDGET_BYTES)
    }

    /// A budget of `bytes` (at least one, at most what a semaphore counts).
    pub fn with_bytes(bytes: usize) -> Self {
        let bytes = bytes.clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        Budget {
            free: Arc::new(Semaphore::new(bytes)),
            bytes,
        }
    }

    /// Waits until `len` bytes (at most the whole budget, at least one) may be in flight.
    pub async fn reserve(&self, len: usize) -> Option<OwnedSemaphorePermit> {
        let n = len.clamp(1, self.bytes) as u32;
        self.free.clone().acquire_many_owned(n).await.ok()
    }

    /// Takes up to `len` bytes of what is free now, without waiting: the charge for a line the guard writes
    /// itself because of a line this budget's reader read (an answer to a bad client line, a rewritten
    /// upstream error). The main loop cannot wait (it also keeps the clock and the signals), so when the
    /// budget is spent the line goes out partly uncharged; the reader, which does wait, stops reading until
    /// the far peer has read what is queued. Uncharged bytes are thus bounded by the lines already read
    /// and queued for the main loop.
    pub fn charge(&self, len: usize) -> Option<OwnedSemaphorePermit> {
        let n = len.min(self.free.available_permits()).min(self.bytes) as u32;
        if n == 0 {
            return None;
        }
        self.free.clone().try_acquire_many_owned(n).ok()
    }

    /// Takes `len` bytes (at least one) if they are free now, else nothing.
    pub fn try_take(&self, len: usize) -> Option<OwnedSemaphorePermit> {
        if len > self.bytes {
            return None;
        }
        self.free
            .clone()
            .try_acquire_many_owned(len.max(1) as u32)
            .ok()
    }

    /// Bytes free now.
    pub fn free(&self) -> usize {
        self.free.available_permits()
    }

    /// Whether nothing holds any of the budget.
    pub fn unused(&self) -> bool {
        self.free.available_permits() == self.bytes
    }
}

/// A line on its way to a peer.
pub struct Outgoing {
    pub bytes: Vec<u8>,
    /// The line as it was read (not written by the guard itself).
    pub forwarded: bool,
    /// When the line it answers or relays was read: the guard's added latency ends when it is written.
    pub read_at: Option<Instant>,
    /// Held until the line is written: dropping it gives the bytes back to the reader's budget.
    #[allow(dead_code)]
    pub permit: Option<OwnedSemaphorePermit>,
}

/// Writes every line it receives, newline-terminated and in order, flushing after each burst; returns the
/// write error that stopped it, if any. Dropping the sender ends it (and closes the pipe).
pub async fn write_lines<W: AsyncWrite + Unpin>(
    writer: W,
    lines: mpsc::UnboundedReceiver<Outgoing>,
    written: impl FnMut(&Outgoing),
) -> Result<(), std::io::Error> {
    write_bursts(writer, lines, written, false).await
}

/// As [`write_lines`], but a burst of fewer than [`GATHER_BELOW`] lines first lets the tasks that are ready
/// run once (a yield), and takes what they queued too: the lines a busy relay hands over one by one (the
/// HTTP front's shared child, many clients' requests) go out in one `write` instead of one each, and the
/// child is woken once for them. A lone line waits one turn of the scheduler, no timer.
pub async fn write_lines_gathered<W: AsyncWrite + Unpin>(
    writer: W,
    lines: mpsc::UnboundedReceiver<Outgoing>,
    written: impl FnMut(&Outgoing),
) -> Result<(), std::io::Error> {
    write_bursts(writer, lines, written, true).await
}

/// A burst smaller than this is gathered further once (`write_lines_gathered`).
pub const GATHER_BELOW: usize = 8;
/// Most lines in one burst (one flush).
const BURST_LINES: usize = 64;

async fn write_bursts<W: AsyncWrite + Unpin>(
    writer: W,
    mut lines: mpsc::UnboundedReceiver<Outgoing>,
    mut written: impl FnMut(&Outgoing),
    gather: bool,
) -> Result<(), std::io::Error> {
    let mut writer = tokio::io::BufWriter::with_capacity(64 * 1024, writer);
    let mut burst = Vec::with_capacity(BURST_LINES);
    let take_ready = |lines: &mut mpsc::UnboundedReceiver<Outgoing>, burst: &mut Vec<Outgoing>| {
        while burst.len() < BURST_LINES {
            match lines.try_recv() {
                Ok(next) => burst.push(next),
                Err(_) => break,
            }
        }
    };
    while let Some(first) = lines.recv().await {
        burst.push(first);
        take_ready(&mut lines, &mut burst);
        if gather && burst.len() < GATHER_BELOW {
            tokio::task::yield_now().await;
            take_ready(&mut lines, &mut burst);
        }
        for out in &burst {
            writer.write_all(&out.bytes).await?;
            writer.write_all(b"\n").await?;
        }
        writer.flush().await?;
        for out in burst.drain(..) {
            written(&out);
        }
    }
    writer.flush().await?;
    writer.shutdown().await
}

/// Most bytes of the upstream's stderr handed on at once: a stack trace or a PEM block written in a burst
/// reaches the session in one call.
pub const STDERR_CHUNK: usize = 64 * 1024;

/// Reads a stderr pipe in bursts: whatever arrives within 20 ms of the first byte (up to [`STDERR_CHUNK`])
/// is handed on in one piece. Where the text may be cut is the session's business (`upstream-stderr` holds
/// an unfinished line until its end), so that every runtime cuts it the same way.
pub async fn read_stderr_bursts<R: AsyncRead + Unpin>(
    mut reader: R,
    mut emit: impl AsyncFnMut(Vec<u8>),
) {
    let mut chunk = vec![0u8; 8192];
    let mut eof = false;
    while !eof {
        let mut burst = Vec::new();
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => eof = true,
            Ok(n) => burst.extend_from_slice(&chunk[..n]),
        }
        while !eof && burst.len() < STDERR_CHUNK {
            match tokio::time::timeout(
                std::time::Duration::from_millis(20),
                reader.read(&mut chunk),
            )
            .await
            {
                Ok(Ok(0)) | Ok(Err(_)) => eof = true,
                Ok(Ok(n)) => burst.extend_from_slice(&chunk[..n]),
                Err(_) => break,
            }
        }
        if !burst.is_empty() {
            emit(burst).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn show(read: Read) -> Option<String> {
        match read {
            Read::Line(l) => Some(String::from_utf8_lossy(&l).into_owned()),
            Read::Oversize { length, head, tail } => Some(format!(
                "<oversize {length} {}..{}>",
                String::from_utf8_lossy(&head),
                String::from_utf8_lossy(&tail)
            )),
            Read::Eof => None,
            Read::Failed(e) => panic!("{e}"),
        }
    }

    /// Every read of `input` through a reader asking for `chunk` bytes at a time.
    async fn reads(input: &[u8], cap: usize, chunk: usize) -> Vec<String> {
        let mut r = LineReader::with_chunk(input, chunk);
        let mut out = Vec::new();
        while let Some(read) = show(r.read_line(cap).await) {
            out.push(read);
        }
        out
    }

    /// What reading `input` must give: each newline-ended piece (and a last one without), whole, or its length
    /// and ends when longer than `cap`.
    fn expected(input: &[u8], cap: usize) -> Vec<String> {
        let mut pieces: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
        if pieces.last().is_some_and(|p| p.is_empty()) {
            pieces.pop();
        }
        pieces
            .into_iter()
            .map(|p| show(whole_line(p, cap)).unwrap())
            .collect()
    }

    async fn lines(input: &[u8], cap: usize) -> Vec<String> {
        let mut r = LineReader::with_chunk(input, 4);
        let mut out = Vec::new();
        loop {
            match r.read_line(cap).await {
                Read::Line(l) => out.push(String::from_utf8(l).unwrap()),
                Read::Oversize { length, head, tail } => out.push(format!(
                    "<oversize {length} {}..{}>",
                    String::from_utf8_lossy(&head),
                    String::from_utf8_lossy(&tail)
                )),
                Read::Eof => return out,
                Read::Failed(e) => panic!("{e}"),
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_capped_and_resynchronized() {
        assert_eq!(lines(b"a\nbb\n\nccc", 10).await, ["a", "bb", "", "ccc"]);
        assert_eq!(
            lines(b"0123456789ABC\nok\n", 10).await,
            ["<oversize 13 0123456789ABC..0123456789ABC>", "ok"]
        );
        assert_eq!(lines(b"0123456789\n", 10).await, ["0123456789"]);
        assert!(lines(b"", 10).await.is_empty());
    }

    #[tokio::test]
    async fn an_oversize_line_keeps_its_ends_only() {
        let line: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let input = [line.as_slice(), b"\n"].concat();
        let mut r = LineReader::with_chunk(&input[..], 700);
        match r.read_line(5_000).await {
            Read::Oversize { length, head, tail } => {
                assert_eq!(length, 20_000);
                assert_eq!(head, line[..EDGE_BYTES]);
                assert_eq!(tail, line[line.len() - EDGE_BYTES..]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_long_line_read_straight_into_its_own_buffer_leaves_the_next_lines_whole() {
        // Longer than a chunk: read on into a buffer of its own, one read bringing the next lines with it.
        let long: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let input = [long.as_slice(), b"\nnext\n\nlast"].concat();
        let got = reads(&input, 1 << 20, CHUNK).await;
        assert_eq!(got, expected(&input, 1 << 20));
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].len(), long.len());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Any input, cut into reads of any size, under any cap: the lines of a plain split, each whole or its
        /// ends, in order, none lost (a mutated reader, one that drops what a long line's read brought past its
        /// end, fails this).
        #[test]
        fn lines_are_the_split_of_the_input_whatever_the_reads(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
                    (0usize..12_000).prop_map(|n| vec![b'x'; n]),
                    proptest::strategy::Just(b"\n".to_vec()),
                ],
                0..12,
            ),
            cap in proptest::prop_oneof![1usize..20, 20usize..5_000, 5_000usize..20_000],
            chunk in proptest::prop_oneof![1usize..8, 8usize..2_000, proptest::strategy::Just(CHUNK)],
        ) {
            let input = pieces.concat();
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let got = rt.block_on(reads(&input, cap, chunk));
            proptest::prop_assert_eq!(got, expected(&input, cap));
        }
    }

    #[test]
    fn a_budget_is_taken_whole_or_not_at_all_and_comes_back_when_let_go() {
        let budget = Budget::with_bytes(10);
        assert!(budget.unused());
        let a = budget.try_take(6).expect("free");
        assert!(!budget.unused());
        assert!(budget.try_take(5).is_none(), "only 4 bytes are free");
        assert!(budget.try_take(11).is_none(), "more than the whole budget");
        let rest = budget.charge(100).expect("what is free");
        assert_eq!(rest.num_permits(), 4);
        assert!(budget.charge(1).is_none());
        drop((a, rest));
        assert!(budget.unused());
    }

    /// An AsyncWrite that keeps what it is given and counts the writes that reach it.
    #[derive(Default)]
    struct Kept {
        bytes: Vec<u8>,
        writes: usize,
    }

    impl AsyncWrite for Kept {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            self.writes += 1;
            self.bytes.extend_from_slice(buf);
            std::task::Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn gathered_writes_keep_every_clients_lines_whole_and_in_order() {
        // Many clients' lines handed to one writer as a busy relay hands them: one at a time, from tasks
        // that interleave. Every line must come out once, whole, newline-ended, each client's in its order,
        // and in fewer writes than lines (the gathering happened).
        const CLIENTS: usize = 16;
        const LINES: usize = 200;
        let (tx, rx) = mpsc::unbounded_channel::<Outgoing>();
        let kept = std::sync::Arc::new(std::sync::Mutex::new(Kept::default()));
        struct Shared(std::sync::Arc<std::sync::Mutex<Kept>>);
        impl AsyncWrite for Shared {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                std::pin::Pin::new(&mut *self.0.lock().unwrap()).poll_write(cx, buf)
            }
            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }
            fn poll_shutdown(
                self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }
        }
        let mut written = 0usize;
        let writer = tokio::spawn({
            let out = Shared(kept.clone());
            async move {
                write_lines_gathered(out, rx, |_| written += 1)
                    .await
                    .unwrap();
                written
            }
        });
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let tx = tx.clone();
                tokio::spawn(async move {
                    for i in 0..LINES {
                        // Lines of different lengths, some longer than a burst's buffer would split.
                        let pad = "x".repeat((c * 131 + i * 17) % 700);
                        let line = format!(r#"{{"client":{c},"seq":{i},"pad":"{pad}"}}"#);
                        tx.send(Outgoing {
                            bytes: line.into_bytes(),
                            forwarded: true,
                            read_at: None,
                            permit: None,
                        })
                        .unwrap();
                        if i % 3 == c % 3 {
                            tokio::task::yield_now().await;
                        }
                    }
                })
            })
            .collect();
        for client in clients {
            client.await.unwrap();
        }
        drop(tx);
        assert_eq!(
            writer.await.unwrap(),
            CLIENTS * LINES,
            "lines reported written"
        );
        let kept = kept.lock().unwrap();
        let text = std::str::from_utf8(&kept.bytes).expect("lines whole");
        assert!(text.ends_with('\n'));
        let mut next = [0usize; CLIENTS];
        for line in text.lines() {
            let v: serde_json::Value =
                serde_json::from_str(line).expect("a line mixed with another");
            let (c, i) = (
                v["client"].as_u64().unwrap() as usize,
                v["seq"].as_u64().unwrap() as usize,
            );
            assert_eq!(i, next[c], "client {c}'s lines lost or reordered");
            assert_eq!(v["pad"].as_str().unwrap().len(), (c * 131 + i * 17) % 700);
            next[c] += 1;
        }
        assert_eq!(next, [LINES; CLIENTS], "lines lost");
        assert!(
            kept.writes < CLIENTS * LINES,
            "{} writes for {} lines: nothing was gathered",
            kept.writes,
            CLIENTS * LINES
        );
    }

    #[tokio::test]
    async fn a_stderr_burst_is_handed_on_whole_up_to_a_chunk() {
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        let burst = vec![b'x'; 3 * STDERR_CHUNK + 5];
        read_stderr_bursts(&burst[..], async |bytes: Vec<u8>| pieces.push(bytes)).await;
        assert!(
            pieces.len() >= 3 && pieces.iter().all(|p| p.len() <= STDERR_CHUNK + 8192),
            "{}",
            pieces.len()
        );
        assert_eq!(pieces.concat(), burst, "bytes lost or reordered");
    }
}
