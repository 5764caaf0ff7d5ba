//! Where the guard's log records go: a bounded queue, written to stderr by a thread of its own. A stderr
//! nobody reads (a client that leaves the pipe full) must never hold up the relay: the main loop logs
//! without waiting, and records beyond the queue are dropped and counted (`log_records_dropped_total`).
//!
//! Not `tracing-appender`'s non-blocking writer: when its queue is full at exit, its guard prints a
//! complaint on stdout, which for the guard is the MCP channel and may carry nothing but messages.

use prometheus_client::metrics::counter::Counter;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Records queued toward stderr before new ones are dropped: a burst of a few thousand events (a flood of
/// garbage lines, a pending table answered at once) still reaches the log whole.
pub const QUEUE_RECORDS: usize = 16 * 1024;

/// A handle the logging subscriber makes writers from (one per record).
#[derive(Clone)]
pub struct LogWriter {
    queue: SyncSender<Vec<u8>>,
    /// Records queued or being written: the queue is drained when this is zero.
    in_flight: Arc<AtomicUsize>,
    dropped: Counter,
}

impl LogWriter {
    /// Starts the writer thread on `out` (stderr). `dropped` counts the records the queue had no room for.
    pub fn start<W: Write + Send + 'static>(
        out: W,
        dropped: Counter,
    ) -> std::io::Result<LogWriter> {
        let (queue, records) = sync_channel(QUEUE_RECORDS);
        let in_flight = Arc::new(AtomicUsize::new(0));
        let counted = in_flight.clone();
        std::thread::Builder::new()
            .name("guard-log".into())
            .spawn(move || write_records(out, records, counted))?;
        Ok(LogWriter {
            queue,
            in_flight,
            dropped,
        })
    }

    /// Waits (at most `limit`) for what is queued to be written: at exit, so the last records are not lost
    /// when stderr is read, and the exit is not held up when it is not.
    pub fn drain(&self, limit: Duration) {
        let until = Instant::now() + limit;
        while self.in_flight.load(Ordering::Acquire) > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    pub fn dropped(&self) -> u64 {
        self.dropped.get()
    }

    fn enqueue(&self, record: Vec<u8>) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) =
            self.queue.try_send(record)
        {
            self.in_flight.fetch_sub(1, Ordering::AcqRel);
            self.dropped.inc();
        }
    }
}

fn write_records<W: Write>(mut out: W, records: Receiver<Vec<u8>>, in_flight: Arc<AtomicUsize>) {
    let mut broken = false;
    while let Ok(record) = records.recv() {
        // A stderr that is gone (EPIPE) is not written again; what is queued is let go.
        if !broken && (out.write_all(&record).is_err() || out.flush().is_err()) {
            broken = true;
        }
        in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One record being formatted: queued whole when the subscriber is done with it.
pub struct Record<'a> {
    writer: &'a LogWriter,
    bytes: Vec<u8>,
}

impl Write for Record<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Record<'_> {
    fn drop(&mut self) {
        if !self.bytes.is_empty() {
            self.writer.enqueue(std::mem::take(&mut self.bytes));
        }
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = Record<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Record {
            writer: self,
            bytes: Vec::with_capacity(256),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A stderr that blocks until released, as a pipe nobody reads does.
    struct Stalled(Arc<Mutex<()>>, Arc<Mutex<Vec<u8>>>);

    impl Write for Stalled {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _held = self.0.lock().unwrap();
            self.1.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stalled_stderr_never_blocks_the_logger_and_what_is_dropped_is_counted() {
        let gate = Arc::new(Mutex::new(()));
        let written = Arc::new(Mutex::new(Vec::new()));
        let held = gate.lock().unwrap();
        let writer =
            LogWriter::start(Stalled(gate.clone(), written.clone()), Counter::default()).unwrap();
        let started = Instant::now();
        let total = QUEUE_RECORDS + 500;
        for i in 0..total {
            let mut record = tracing_subscriber::fmt::MakeWriter::make_writer(&writer);
            writeln!(record, "record {i}").unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "logging waited on a stalled stderr: {:?}",
            started.elapsed()
        );
        // One record may be in the writer's hands, blocked; the queue holds QUEUE_RECORDS more.
        let dropped = writer.dropped() as usize;
        assert!((499..=500).contains(&dropped), "{dropped} dropped");
        drop(held);
        writer.drain(Duration::from_secs(5));
        let text = String::from_utf8(written.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), total - dropped);
        assert!(text.starts_with("record 0\n"), "order kept");
    }
}
