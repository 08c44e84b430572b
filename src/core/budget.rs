//! The bound on one walk of the workspace (code_search, project_info's tree, zip_package): a
//! wall-clock deadline and a number of entries, consulted once per entry the walk lists.
//!
//! A walk that passes either bound stops where it is and the tool answers with what it found,
//! plus a warning saying which bound cut it ([`Budget::warning`]), so a huge tree never keeps a
//! request running until PHP's `max_execution_time` or php-fpm's `request_terminate_timeout`
//! ends the worker mid-call (with a temp file or a child left behind). The budget is shared by
//! reference between the threads of one walk, so it is made of atomics.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Wall-clock time one walk (and the work it feeds: scanning, packing) may take.
pub const WALK_TIME: Duration = Duration::from_secs(10);

/// Entries (files, folders, links) one walk of code_search or zip_package may list.
pub const WALK_ENTRIES: usize = 100_000;

/// Entries counted between two readings of the clock.
const CLOCK_EVERY: usize = 64;

/// Why a walk stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The deadline passed.
    Time,
    /// The entry count passed its bound.
    Entries,
}

const NOT_CUT: u8 = 0;
const CUT_TIME: u8 = 1;
const CUT_ENTRIES: u8 = 2;

/// A deadline and an entry allowance for one walk.
#[derive(Debug)]
pub struct Budget {
    deadline: Instant,
    time: Duration,
    entries: usize,
    spent: AtomicUsize,
    cut: AtomicU8,
}

impl Budget {
    /// A budget of `time` from now and `entries` entries.
    pub fn new(time: Duration, entries: usize) -> Budget {
        Budget {
            deadline: Instant::now() + time,
            time,
            entries,
            spent: AtomicUsize::new(0),
            cut: AtomicU8::new(NOT_CUT),
        }
    }

    /// The walks' default: [`WALK_TIME`] and [`WALK_ENTRIES`].
    pub fn walk() -> Budget {
        Budget::new(WALK_TIME, WALK_ENTRIES)
    }

    /// Count one entry: `false` (for good) once the entry bound is passed or the deadline is
    /// (the clock is read every 64 entries: listing one costs less than reading the clock).
    pub fn spend(&self) -> bool {
        if self.cut.load(Ordering::Relaxed) != NOT_CUT {
            return false;
        }
        let n = self.spent.fetch_add(1, Ordering::Relaxed) + 1;
        if n > self.entries {
            self.stop(CUT_ENTRIES);
            return false;
        }
        n % CLOCK_EVERY != 0 || self.in_time()
    }

    /// Whether the deadline is still ahead (`false`, for good, once it passed): for work that
    /// is not an entry (a file being scanned or packed).
    pub fn in_time(&self) -> bool {
        if self.cut.load(Ordering::Relaxed) != NOT_CUT {
            return false;
        }
        if Instant::now() >= self.deadline {
            self.stop(CUT_TIME);
            return false;
        }
        true
    }

    fn stop(&self, why: u8) {
        let _ = self
            .cut
            .compare_exchange(NOT_CUT, why, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Which bound stopped the walk, if one did.
    pub fn cut(&self) -> Option<Cut> {
        match self.cut.load(Ordering::Relaxed) {
            CUT_TIME => Some(Cut::Time),
            CUT_ENTRIES => Some(Cut::Entries),
            _ => None,
        }
    }

    /// The warning a tool adds to its answer when the walk was cut: `{tool}: stopped after …;
    /// the answer covers only part of the tree.`
    pub fn warning(&self, tool: &str) -> Option<String> {
        let why = match self.cut()? {
            Cut::Time => format!("its time budget of {} s", self.time.as_secs()),
            Cut::Entries => format!("{} entries", self.entries),
        };
        Some(format!(
            "{tool}: the walk stopped after {why}; the answer covers only part of the tree. Narrow it to a sub-folder."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_at_the_bound_pass_one_past_cuts() {
        let b = Budget::new(Duration::from_secs(60), 3);
        assert!(b.spend() && b.spend() && b.spend());
        assert_eq!(b.cut(), None);
        assert!(b.warning("t").is_none());
        assert!(!b.spend());
        assert_eq!(b.cut(), Some(Cut::Entries));
        assert!(!b.spend() && !b.in_time());
        assert_eq!(
            b.warning("t").unwrap(),
            "t: the walk stopped after 3 entries; the answer covers only part of the tree. Narrow it to a sub-folder."
        );
    }

    #[test]
    fn a_passed_deadline_cuts() {
        let b = Budget::new(Duration::ZERO, 10);
        assert!(!b.in_time());
        assert!(!b.spend());
        assert_eq!(b.cut(), Some(Cut::Time));
        assert!(b.warning("t").unwrap().contains("time budget of 0 s"));
        let b = Budget::new(Duration::from_millis(30), usize::MAX);
        assert!(b.spend());
        std::thread::sleep(Duration::from_millis(40));
        assert!((0..CLOCK_EVERY).any(|_| !b.spend()));
        assert_eq!(b.cut(), Some(Cut::Time));
        assert!(!b.spend());
    }
}
