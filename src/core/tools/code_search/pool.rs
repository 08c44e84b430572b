//! code_search's helper threads: a small process-wide pool of long-lived threads, so a search of
//! a large tree gets a second core without starting a thread per call.
//!
//! Bounded: at most [`max_helpers`] threads per process (one less than the cores, at least one,
//! at most four), started on first need and kept for the life of the process. A search asks for
//! one with [`reserve`]; when every helper is busy (many request threads searching at once in a
//! thread-safe PHP) it gets none and searches alone, so a search never waits for another. A job
//! holds no PHP value (only paths, folder descriptors, the compiled pattern and the open root,
//! all `Send`), and the caller waits for its job to end before it returns, so no work outlives
//! the call.
//!
//! After a `fork()` the child has no helper threads: the pool notices the process id changed and
//! starts afresh rather than handing a job to a thread that does not exist.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Work handed to a helper.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// One helper's mailbox: the job to run next and the sender that says it is over.
#[derive(Default)]
struct Slot {
    job: Mutex<Option<(Job, SyncSender<()>)>>,
    wake: Condvar,
}

/// The helpers of this process.
struct Pool {
    /// The process the helpers were started in.
    pid: u32,
    /// Every helper started, by index.
    helpers: Vec<Arc<Slot>>,
    /// Indexes of the helpers waiting for work.
    idle: Vec<usize>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// Helper threads at most: one less than the cores the process may use, at least one, at most
/// four (a search uses one helper; more only serve concurrent searches).
pub fn max_helpers() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .saturating_sub(1)
            .clamp(1, 4)
    })
}

/// A helper set aside for one job; given back to the pool when dropped unused.
pub struct Reservation {
    index: usize,
    slot: Arc<Slot>,
    pid: u32,
    used: bool,
}

/// A job running on a helper.
pub struct Running {
    done: Receiver<()>,
}

impl Running {
    /// Wait until the job has ended (returned or panicked) and its helper is idle again.
    pub fn wait(self) {
        let _ = self.done.recv();
    }
}

/// An idle helper (started now if the pool has room), or `None` when all are busy or no thread
/// can be started.
pub fn reserve() -> Option<Reservation> {
    let pid = std::process::id();
    let mut guard = POOL.lock().ok()?;
    let pool = guard.get_or_insert_with(|| Pool {
        pid,
        helpers: Vec::new(),
        idle: Vec::new(),
    });
    if pool.pid != pid {
        // A forked child: the helpers stayed in the parent.
        *pool = Pool {
            pid,
            helpers: Vec::new(),
            idle: Vec::new(),
        };
    }
    if let Some(index) = pool.idle.pop() {
        let slot = pool.helpers[index].clone();
        return Some(Reservation {
            index,
            slot,
            pid,
            used: false,
        });
    }
    if pool.helpers.len() >= max_helpers() {
        return None;
    }
    let slot = Arc::new(Slot::default());
    let index = pool.helpers.len();
    let theirs = slot.clone();
    std::thread::Builder::new()
        .name("phpclaw-search".into())
        .spawn(move || helper(index, pid, &theirs))
        .ok()?;
    pool.helpers.push(slot.clone());
    Some(Reservation {
        index,
        slot,
        pid,
        used: false,
    })
}

impl Reservation {
    /// Run `job` on the reserved helper.
    pub fn run(mut self, job: impl FnOnce() + Send + 'static) -> Running {
        let (tx, done) = sync_channel(0);
        self.used = true;
        if let Ok(mut next) = self.slot.job.lock() {
            *next = Some((Box::new(job), tx));
            self.slot.wake.notify_one();
        }
        // A poisoned slot (impossible: nothing panics while holding it) drops the job and its
        // sender, so `wait` returns at once and the caller's scan goes on alone.
        Running { done }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.used {
            give_back(self.index, self.pid);
        }
    }
}

/// Mark helper `index` idle, unless the process forked since (the pool is a new one).
fn give_back(index: usize, pid: u32) {
    if let Ok(mut guard) = POOL.lock() {
        if let Some(pool) = guard.as_mut().filter(|p| p.pid == pid) {
            pool.idle.push(index);
        }
    }
}

/// A helper's life: wait for a job, run it, become idle, say the job is over; forever.
fn helper(index: usize, pid: u32, slot: &Slot) {
    loop {
        let next = {
            let Ok(mut job) = slot.job.lock() else { return };
            loop {
                if let Some(next) = job.take() {
                    break next;
                }
                job = match slot.wake.wait(job) {
                    Ok(job) => job,
                    Err(_) => return,
                };
            }
        };
        let (job, done) = next;
        // A panic ends the job, not the helper; the caller only sees its job end early.
        let _ = catch_unwind(AssertUnwindSafe(job));
        give_back(index, pid);
        drop(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A reservation, waiting while other tests' searches hold every helper.
    fn reserve_soon() -> Reservation {
        for _ in 0..10_000 {
            if let Some(r) = reserve() {
                return r;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("no helper became idle");
    }

    #[test]
    fn helpers_are_reused_and_bounded() {
        let ran = Arc::new(AtomicUsize::new(0));
        let mut ids = std::collections::HashSet::new();
        for _ in 0..20 {
            let ran = ran.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            reserve_soon()
                .run(move || {
                    ran.fetch_add(1, Ordering::Relaxed);
                    tx.send(std::thread::current().id()).unwrap();
                })
                .wait();
            ids.insert(rx.recv().unwrap());
        }
        assert_eq!(ran.load(Ordering::Relaxed), 20);
        // Twenty jobs, never more threads than the bound.
        assert!(ids.len() <= max_helpers(), "{} threads", ids.len());
        let held: Vec<_> = std::iter::from_fn(reserve).take(64).collect();
        assert!(held.len() <= max_helpers());
        // Every helper held here: none left (other tests' searches may hold some too).
        if held.len() == max_helpers() {
            assert!(reserve().is_none());
        }
        drop(held);
        drop(reserve_soon());
    }

    #[test]
    fn a_panicking_job_ends_and_its_helper_stays() {
        for _ in 0..3 {
            reserve_soon().run(|| panic!("job panics")).wait();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        reserve_soon().run(move || tx.send(7).unwrap()).wait();
        assert_eq!(rx.recv().unwrap(), 7);
        assert!(helper_count() <= max_helpers());
    }

    /// Helpers started in this process.
    fn helper_count() -> usize {
        POOL.lock().unwrap().as_ref().map_or(0, |p| p.helpers.len())
    }
}
