//! Windows: the upstream's tree is a job object that kills every process in it when its last handle
//! closes, and the guard holds the only handle. However the guard ends (it exits, it is killed, its
//! console closes), the system closes the handle and the tree goes with it; when the upstream exits, what it
//! left running is ended with the job.
//!
//! The upstream is created suspended, put in the job, then resumed: none of its code runs before it is in
//! the job, so no child it starts can escape it (children join their parent's job). It runs without a
//! console window and in a console process group of its own, so a Ctrl-C typed at the guard's console
//! reaches the guard only, which stops it as it stops it on every platform: input closed, `--grace`, then
//! the job is terminated (Windows has no polite signal for a process without a console: no SIGTERM step).
//!
//! Console control events (Ctrl-C, Ctrl-Break, closing the console, logoff, shutdown) are the guard's
//! signals; none reloads the policy file (SIGHUP's part on Unix). The guard's stdin and stdout are read and
//! written through tokio's blocking pool (no readiness for anonymous pipes on Windows).

use std::io;
use std::os::windows::io::{
    AsRawHandle, AsRawSocket, BorrowedSocket, FromRawHandle, OwnedHandle, RawSocket as WinSocket,
};
use std::process::{ExitStatus, Stdio};
use tokio::process::{Child, Command};
use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectBasicAccountingInformation,
    JobObjectExtendedLimitInformation, QueryInformationJobObject, SetInformationJobObject,
    TerminateJobObject, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    OpenThread, ResumeThread, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, CREATE_SUSPENDED,
    THREAD_SUSPEND_RESUME,
};

/// The exit code of a process the guard ended (what `TerminateProcess` conventionally leaves).
const KILLED: u32 = 1;

/// The upstream's process tree: a job object with every process the upstream started in it.
pub struct Tree {
    /// The only handle to the job: closing it (dropping this, or the guard's end) kills the tree.
    job: OwnedHandle,
    pid: u32,
}

impl Tree {
    /// The upstream's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Windows has no polite signal for a process without a console: nothing is sent (the caller kills).
    pub fn terminate(&self) -> Option<&'static str> {
        None
    }

    /// Ends every process in the job now. Returns what was done.
    pub fn kill(&self) -> &'static str {
        // SAFETY: the job handle is open for as long as `self` lives.
        unsafe { TerminateJobObject(self.job.as_raw_handle(), KILLED) };
        "TerminateJobObject"
    }

    /// Whether any process of the job is still running.
    pub fn alive(&self) -> bool {
        let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: the job handle is open; the call writes at most `size_of(info)` bytes into `info`.
        let ok = unsafe {
            QueryInformationJobObject(
                self.job.as_raw_handle(),
                JobObjectBasicAccountingInformation,
                (&raw mut info).cast(),
                size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        ok != 0 && info.ActiveProcesses > 0
    }
}

/// A job that kills its processes when its last handle closes.
fn new_job() -> io::Result<OwnedHandle> {
    // SAFETY: no security attributes, no name: a new anonymous job, whose handle is not inheritable (no
    // child of the guard can hold it open).
    let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if raw.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a handle we just opened and own.
    let job = unsafe { OwnedHandle::from_raw_handle(raw) };
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: the job handle is open; the call reads `size_of(limits)` bytes from `limits`.
    let ok = unsafe {
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            (&raw const limits).cast(),
            size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(job)
}

/// Starts `command` with piped stdio, suspended, puts it in a new job and resumes it.
pub fn spawn(command: &[String]) -> io::Result<(Child, Tree)> {
    let job = new_job()?;
    let mut cmd = Command::new(&command[0]);
    cmd.args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .creation_flags(CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
    let mut child = cmd.spawn()?;
    let pid = child.id().unwrap_or(0);
    let joined = match child.raw_handle() {
        // SAFETY: the job handle is open, and so is the child's process handle, which `child` owns.
        Some(process) if unsafe { AssignProcessToJobObject(job.as_raw_handle(), process) } != 0 => {
            resume(pid)
        }
        Some(_) => Err(io::Error::last_os_error()),
        None => Err(io::Error::other(
            "the upstream exited before it was started",
        )),
    };
    if let Err(e) = joined {
        // Still suspended (or in the job, which goes with `job`): it never ran.
        let _ = child.start_kill();
        return Err(e);
    }
    Ok((child, Tree { job, pid }))
}

/// Resumes every thread of process `pid` (a process created suspended has one). The standard library
/// keeps the thread's handle to itself, so the thread is found by a snapshot of the system's threads.
fn resume(pid: u32) -> io::Result<()> {
    // SAFETY: a snapshot of every thread in the system; the handle is closed below.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    let snapshot = Handle(snapshot);
    let mut entry = THREADENTRY32 {
        dwSize: size_of::<THREADENTRY32>() as u32,
        ..Default::default()
    };
    let mut resumed = false;
    // SAFETY: the snapshot handle is open; each call fills `entry`, whose dwSize says how large it is.
    let mut more = unsafe { Thread32First(snapshot.0, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: opens the thread for resuming only; the handle is closed at once.
            let thread =
                Handle(unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) });
            if thread.0.is_null() {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the thread handle is open with THREAD_SUSPEND_RESUME.
            if unsafe { ResumeThread(thread.0) } == u32::MAX {
                return Err(io::Error::last_os_error());
            }
            resumed = true;
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot.0, &mut entry) } != 0;
    }
    if resumed {
        Ok(())
    } else {
        Err(io::Error::other(
            "the upstream's thread was not found to resume it",
        ))
    }
}

/// A handle closed when dropped (a snapshot's or a thread's; not `OwnedHandle`, which a failed open's null
/// or invalid value must not become).
struct Handle(HANDLE);

impl Drop for Handle {
    fn drop(&mut self) {
        if !self.0.is_null() && self.0 != INVALID_HANDLE_VALUE {
            // SAFETY: the handle was opened by this module and is closed once.
            unsafe { CloseHandle(self.0) };
        }
    }
}

/// Never run: the Windows guard starts no helper process of its own.
pub fn run_helper(_args: &[String]) {}

/// No signal ends a Windows process: its exit code is all there is.
pub fn signal_of(_status: ExitStatus) -> Option<i32> {
    None
}

/// Console control events: Ctrl-C and Ctrl-Break stop the upstream the same way a closed client does, and
/// so do the console closing, logoff and shutdown (for which Windows gives the guard a few seconds: 5 for a
/// closed console, after which it ends the guard, and the job its tree).
pub struct Signals {
    c: Option<tokio::signal::windows::CtrlC>,
    brk: Option<tokio::signal::windows::CtrlBreak>,
    close: Option<tokio::signal::windows::CtrlClose>,
    logoff: Option<tokio::signal::windows::CtrlLogoff>,
    shutdown: Option<tokio::signal::windows::CtrlShutdown>,
}

impl Signals {
    pub fn new() -> Self {
        Signals {
            c: ctrl_c().ok(),
            brk: ctrl_break().ok(),
            close: ctrl_close().ok(),
            logoff: ctrl_logoff().ok(),
            shutdown: ctrl_shutdown().ok(),
        }
    }

    /// The next event's name.
    pub async fn recv(&mut self) -> &'static str {
        macro_rules! one {
            ($s:expr) => {
                async {
                    match $s {
                        Some(s) => {
                            s.recv().await;
                        }
                        None => std::future::pending::<()>().await,
                    }
                }
            };
        }
        tokio::select! {
            _ = one!(&mut self.c) => "CTRL_C",
            _ = one!(&mut self.brk) => "CTRL_BREAK",
            _ = one!(&mut self.close) => "CTRL_CLOSE",
            _ = one!(&mut self.logoff) => "CTRL_LOGOFF",
            _ = one!(&mut self.shutdown) => "CTRL_SHUTDOWN",
        }
    }
}

/// The guard's stdin, read on tokio's blocking pool.
pub fn stdin() -> tokio::io::Stdin {
    tokio::io::stdin()
}

/// The guard's stdout, written on tokio's blocking pool.
pub fn stdout() -> tokio::io::Stdout {
    tokio::io::stdout()
}

/// A connection's socket, as the HTTP front keeps it to look for a client that left.
pub type RawSocket = WinSocket;

pub fn raw_socket(stream: &tokio::net::TcpStream) -> RawSocket {
    stream.as_raw_socket()
}

/// Peeks at one byte of what the client sent on `socket`, consuming nothing. The socket must be open and
/// non-blocking (tokio's are) for as long as this runs.
pub fn peek(socket: RawSocket) -> io::Result<usize> {
    // SAFETY: the caller's connection owns the socket and keeps it open while this call borrows it.
    let borrowed = unsafe { BorrowedSocket::borrow_raw(socket) };
    socket2::SockRef::from(&borrowed).peek(&mut [std::mem::MaybeUninit::uninit()])
}

/// Nothing to do: Windows lets a listening socket bind a port its last run's connections still hold in
/// TIME_WAIT, and SO_REUSEADDR would let another process's socket bind the guard's port while it listens.
pub fn allow_rebind(_socket: &tokio::net::TcpSocket) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Run under Wine by tests/platforms/run-tests.sh. The processes are this test executable itself, run as
    //! a helper: [`helper_process`] is a test only they run (it is ignored otherwise).
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncBufReadExt;
    use windows_sys::Win32::Foundation::WAIT_OBJECT_0;
    use windows_sys::Win32::System::Threading::{
        OpenProcess, WaitForSingleObject, PROCESS_SYNCHRONIZE,
    };

    /// This executable, running only [`helper_process`], as `role` (an extra filter, which names no test).
    fn helper(role: &str) -> Vec<String> {
        vec![
            std::env::current_exe().unwrap().display().to_string(),
            "--ignored".into(),
            "--exact".into(),
            "--nocapture".into(),
            "proxy::platform::windows::tests::helper_process".into(),
            format!("role={role}"),
        ]
    }

    /// As `parent`: starts a `sleeper` (a grandchild of the test), prints its pid, then waits for it; as
    /// `sleeper`: sleeps a minute. Both are killed by the test.
    #[test]
    #[ignore = "a process the other tests start"]
    fn helper_process() {
        let role = std::env::args().find_map(|a| a.strip_prefix("role=").map(String::from));
        match role.as_deref() {
            Some("parent") => {
                let mut args = helper("sleeper");
                let mut child = std::process::Command::new(args.remove(0))
                    .args(args)
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap();
                println!("grandchild {}", child.id());
                // As long as the sleeper sleeps.
                let _ = child.wait();
            }
            Some("sleeper") => std::thread::sleep(Duration::from_secs(60)),
            _ => {}
        }
    }

    /// Starts a parent and its grandchild in a tree; returns them with the grandchild's process handle.
    async fn tree() -> (Child, Tree, Handle) {
        let (mut child, tree) = spawn(&helper("parent")).unwrap();
        let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // The test harness's own lines come first.
        let pid: u32 = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let line = out
                    .next_line()
                    .await
                    .unwrap()
                    .expect("the parent's pid line");
                if let Some(pid) = line.strip_prefix("grandchild ") {
                    return pid.trim().parse().unwrap();
                }
            }
        })
        .await
        .expect("the parent ran (it was resumed)");
        // SAFETY: opens the grandchild for waiting only; `Handle` closes it.
        let grandchild = Handle(unsafe { OpenProcess(PROCESS_SYNCHRONIZE, 0, pid) });
        assert!(!grandchild.0.is_null(), "the grandchild runs");
        (child, tree, grandchild)
    }

    fn ended(process: &Handle) -> bool {
        // SAFETY: the handle is open with SYNCHRONIZE.
        unsafe { WaitForSingleObject(process.0, 10_000) == WAIT_OBJECT_0 }
    }

    #[tokio::test]
    async fn kill_ends_the_whole_tree() {
        let (mut child, tree, grandchild) = tree().await;
        assert!(tree.alive());
        assert_eq!(tree.terminate(), None, "no polite signal on Windows");
        assert_eq!(tree.kill(), "TerminateJobObject");
        let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(KILLED as i32));
        assert!(ended(&grandchild), "the grandchild outlived the kill");
        assert!(!tree.alive());
    }

    #[tokio::test]
    async fn the_tree_ends_when_its_job_is_let_go() {
        let (child, tree, grandchild) = tree().await;
        let parent = Handle(unsafe {
            // SAFETY: opens the parent for waiting only; `Handle` closes it.
            OpenProcess(PROCESS_SYNCHRONIZE, 0, child.id().unwrap())
        });
        // Not through `child` (whose drop kills it): the job's last handle closing must do it alone.
        std::mem::forget(child);
        drop(tree);
        assert!(ended(&parent), "the parent outlived its job");
        assert!(ended(&grandchild), "the grandchild outlived its job");
    }

    #[tokio::test]
    async fn a_command_that_does_not_exist_is_not_found() {
        let e = spawn(&["no-such-program-anywhere.exe".into()])
            .err()
            .unwrap();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
