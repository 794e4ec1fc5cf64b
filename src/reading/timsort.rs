//! `Array.prototype.sort` as V8 runs it: TimSort, step for step.
//!
//! For a consistent comparator any stable sort gives the same order. A comparator that
//! is not consistent (`new Date(a).getTime() - new Date(b).getTime()` with an invalid
//! date: the difference is `NaN`, which `sort` reads as "equal") leaves an order that
//! depends on exactly which pairs the algorithm compared. To give the very order V8
//! gives, this module makes the same comparisons in the same sequence: the natural runs,
//! binary insertion up to the minimum run length, the run-stack invariants, galloping
//! with its adaptive threshold, and the low/high merges. V8 only ever asks whether the
//! comparator's result is below zero, so the comparator here is a "less than" predicate.

/// Galloping starts after this many consecutive wins of one run (and adapts from there).
const MIN_GALLOP: usize = 7;

/// Sorts `items` in place in the order V8's `Array.prototype.sort` leaves them, where
/// `less(a, b)` is `comparefn(a, b) < 0` (with `NaN` counting as `0`, so as not less).
pub fn sort_by<T: Clone>(items: &mut [T], less: impl FnMut(&T, &T) -> bool) {
    let len = items.len();
    if len < 2 {
        return;
    }
    let mut sorter = Sorter {
        work: items,
        temp: Vec::new(),
        runs: Vec::new(),
        min_gallop: MIN_GALLOP,
        less,
    };
    sorter.run(len);
}

struct Sorter<'a, T, F> {
    work: &'a mut [T],
    temp: Vec<T>,
    /// Pending runs: `(base, length)`.
    runs: Vec<(usize, usize)>,
    min_gallop: usize,
    less: F,
}

/// Natural runs shorter than this are extended by binary insertion.
fn min_run_length(mut n: usize) -> usize {
    let mut carry = 0;
    while n >= 64 {
        carry |= n & 1;
        n >>= 1;
    }
    n + carry
}

impl<T: Clone, F: FnMut(&T, &T) -> bool> Sorter<'_, T, F> {
    fn run(&mut self, len: usize) {
        let min_run = min_run_length(len);
        let mut low = 0;
        let mut remaining = len;
        while remaining != 0 {
            let mut run = self.count_and_make_run(low, low + remaining);
            if run < min_run {
                let forced = min_run.min(remaining);
                self.binary_insertion_sort(low, low + run, low + forced);
                run = forced;
            }
            self.runs.push((low, run));
            self.merge_collapse();
            low += run;
            remaining -= run;
        }
        self.merge_force_collapse();
    }

    /// Sorts `[low, high)` given that `[low, start)` is sorted.
    fn binary_insertion_sort(&mut self, low: usize, start: usize, high: usize) {
        let mut start = if low == start { start + 1 } else { start };
        while start < high {
            let pivot = self.work[start].clone();
            let (mut left, mut right) = (low, start);
            while left < right {
                let mid = left + ((right - left) >> 1);
                if (self.less)(&pivot, &self.work[mid]) {
                    right = mid;
                } else {
                    left = mid + 1;
                }
            }
            self.work[left..=start].rotate_right(1);
            start += 1;
        }
    }

    /// The length of the run starting at `low` (a strictly descending one is reversed).
    fn count_and_make_run(&mut self, low: usize, high: usize) -> usize {
        if low + 1 == high {
            return 1;
        }
        let descending = (self.less)(&self.work[low + 1], &self.work[low]);
        let mut run = 2;
        let mut index = low + 2;
        while index < high {
            let less = (self.less)(&self.work[index], &self.work[index - 1]);
            if descending != less {
                break;
            }
            run += 1;
            index += 1;
        }
        if descending {
            self.work[low..low + run].reverse();
        }
        run
    }

    fn run_invariant_holds(&self, n: usize) -> bool {
        if n < 2 {
            return true;
        }
        self.runs[n - 2].1 > self.runs[n - 1].1 + self.runs[n].1
    }

    fn merge_collapse(&mut self) {
        while self.runs.len() > 1 {
            let mut n = self.runs.len() - 2;
            if !self.run_invariant_holds(n + 1) || !self.run_invariant_holds(n) {
                if self.runs[n - 1].1 < self.runs[n + 1].1 {
                    n -= 1;
                }
                self.merge_at(n);
            } else if self.runs[n].1 <= self.runs[n + 1].1 {
                self.merge_at(n);
            } else {
                break;
            }
        }
    }

    fn merge_force_collapse(&mut self) {
        while self.runs.len() > 1 {
            let mut n = self.runs.len() - 2;
            if n > 0 && self.runs[n - 1].1 < self.runs[n + 1].1 {
                n -= 1;
            }
            self.merge_at(n);
        }
    }

    fn merge_at(&mut self, i: usize) {
        let (mut base_a, mut len_a) = self.runs[i];
        let (base_b, mut len_b) = self.runs[i + 1];
        self.runs[i].1 = len_a + len_b;
        self.runs.remove(i + 1);

        let key = self.work[base_b].clone();
        let skip = gallop_right(&mut self.less, self.work, &key, base_a, len_a, 0);
        base_a += skip;
        len_a -= skip;
        if len_a == 0 {
            return;
        }
        let key = self.work[base_a + len_a - 1].clone();
        len_b = gallop_left(&mut self.less, self.work, &key, base_b, len_b, len_b - 1);
        if len_b == 0 {
            return;
        }
        if len_a <= len_b {
            self.merge_low(base_a, len_a, base_b, len_b);
        } else {
            self.merge_high(base_a, len_a, base_b, len_b);
        }
    }

    /// Merges forwards, with run A (the shorter) copied aside.
    fn merge_low(&mut self, base_a: usize, mut len_a: usize, base_b: usize, mut len_b: usize) {
        self.temp.clear();
        self.temp.extend_from_slice(&self.work[base_a..base_a + len_a]);
        let mut dest = base_a;
        let mut cursor_temp = 0;
        let mut cursor_b = base_b;

        self.work[dest] = self.work[cursor_b].clone();
        dest += 1;
        cursor_b += 1;

        // `Ok(())`: B is used up (copy the rest of A); `Err(())`: one element of A is left,
        // and it goes after the rest of B.
        let outcome: Result<(), ()> = 'merge: {
            len_b -= 1;
            if len_b == 0 {
                break 'merge Ok(());
            }
            if len_a == 1 {
                break 'merge Err(());
            }
            let mut min_gallop = self.min_gallop;
            loop {
                let mut wins_a = 0;
                let mut wins_b = 0;
                loop {
                    if (self.less)(&self.work[cursor_b], &self.temp[cursor_temp]) {
                        self.work[dest] = self.work[cursor_b].clone();
                        dest += 1;
                        cursor_b += 1;
                        wins_b += 1;
                        len_b -= 1;
                        wins_a = 0;
                        if len_b == 0 {
                            break 'merge Ok(());
                        }
                        if wins_b >= min_gallop {
                            break;
                        }
                    } else {
                        self.work[dest] = self.temp[cursor_temp].clone();
                        dest += 1;
                        cursor_temp += 1;
                        wins_a += 1;
                        len_a -= 1;
                        wins_b = 0;
                        if len_a == 1 {
                            break 'merge Err(());
                        }
                        if wins_a >= min_gallop {
                            break;
                        }
                    }
                }
                min_gallop += 1;
                let mut first = true;
                while wins_a >= MIN_GALLOP || wins_b >= MIN_GALLOP || first {
                    first = false;
                    min_gallop = min_gallop.saturating_sub(1).max(1);
                    self.min_gallop = min_gallop;

                    let key = self.work[cursor_b].clone();
                    wins_a = gallop_right(&mut self.less, &self.temp, &key, cursor_temp, len_a, 0);
                    if wins_a > 0 {
                        self.work[dest..dest + wins_a]
                            .clone_from_slice(&self.temp[cursor_temp..cursor_temp + wins_a]);
                        dest += wins_a;
                        cursor_temp += wins_a;
                        len_a -= wins_a;
                        if len_a == 1 {
                            break 'merge Err(());
                        }
                        // Only an inconsistent comparator gets here.
                        if len_a == 0 {
                            break 'merge Ok(());
                        }
                    }
                    self.work[dest] = self.work[cursor_b].clone();
                    dest += 1;
                    cursor_b += 1;
                    len_b -= 1;
                    if len_b == 0 {
                        break 'merge Ok(());
                    }

                    let key = self.temp[cursor_temp].clone();
                    wins_b = gallop_left(&mut self.less, self.work, &key, cursor_b, len_b, 0);
                    if wins_b > 0 {
                        copy_within(self.work, cursor_b, dest, wins_b);
                        dest += wins_b;
                        cursor_b += wins_b;
                        len_b -= wins_b;
                        if len_b == 0 {
                            break 'merge Ok(());
                        }
                    }
                    self.work[dest] = self.temp[cursor_temp].clone();
                    dest += 1;
                    cursor_temp += 1;
                    len_a -= 1;
                    if len_a == 1 {
                        break 'merge Err(());
                    }
                }
                min_gallop += 1;
                self.min_gallop = min_gallop;
            }
        };
        match outcome {
            Ok(()) => {
                if len_a > 0 {
                    self.work[dest..dest + len_a]
                        .clone_from_slice(&self.temp[cursor_temp..cursor_temp + len_a]);
                }
            }
            Err(()) => {
                copy_within(self.work, cursor_b, dest, len_b);
                self.work[dest + len_b] = self.temp[cursor_temp].clone();
            }
        }
    }

    /// Merges backwards, with run B (the shorter) copied aside.
    fn merge_high(&mut self, base_a: usize, mut len_a: usize, base_b: usize, mut len_b: usize) {
        self.temp.clear();
        self.temp.extend_from_slice(&self.work[base_b..base_b + len_b]);
        // Cursors may step one below zero at the very end; they are kept as `isize`.
        let mut dest = (base_b + len_b - 1) as isize;
        let mut cursor_temp = len_b as isize - 1;
        let mut cursor_a = (base_a + len_a - 1) as isize;
        let at = |i: isize| i as usize;

        self.work[at(dest)] = self.work[at(cursor_a)].clone();
        dest -= 1;
        cursor_a -= 1;

        // `Ok(())`: A is used up (copy the rest of B); `Err(())`: one element of B is left,
        // and it goes before the rest of A.
        let outcome: Result<(), ()> = 'merge: {
            len_a -= 1;
            if len_a == 0 {
                break 'merge Ok(());
            }
            if len_b == 1 {
                break 'merge Err(());
            }
            let mut min_gallop = self.min_gallop;
            loop {
                let mut wins_a = 0;
                let mut wins_b = 0;
                loop {
                    if (self.less)(&self.temp[at(cursor_temp)], &self.work[at(cursor_a)]) {
                        self.work[at(dest)] = self.work[at(cursor_a)].clone();
                        dest -= 1;
                        cursor_a -= 1;
                        wins_a += 1;
                        len_a -= 1;
                        wins_b = 0;
                        if len_a == 0 {
                            break 'merge Ok(());
                        }
                        if wins_a >= min_gallop {
                            break;
                        }
                    } else {
                        self.work[at(dest)] = self.temp[at(cursor_temp)].clone();
                        dest -= 1;
                        cursor_temp -= 1;
                        wins_b += 1;
                        len_b -= 1;
                        wins_a = 0;
                        if len_b == 1 {
                            break 'merge Err(());
                        }
                        if wins_b >= min_gallop {
                            break;
                        }
                    }
                }
                min_gallop += 1;
                let mut first = true;
                while wins_a >= MIN_GALLOP || wins_b >= MIN_GALLOP || first {
                    first = false;
                    min_gallop = min_gallop.saturating_sub(1).max(1);
                    self.min_gallop = min_gallop;

                    let key = self.temp[at(cursor_temp)].clone();
                    let k = gallop_right(&mut self.less, self.work, &key, base_a, len_a, len_a - 1);
                    wins_a = len_a - k;
                    if wins_a > 0 {
                        dest -= wins_a as isize;
                        cursor_a -= wins_a as isize;
                        copy_within(self.work, at(cursor_a + 1), at(dest + 1), wins_a);
                        len_a -= wins_a;
                        if len_a == 0 {
                            break 'merge Ok(());
                        }
                    }
                    self.work[at(dest)] = self.temp[at(cursor_temp)].clone();
                    dest -= 1;
                    cursor_temp -= 1;
                    len_b -= 1;
                    if len_b == 1 {
                        break 'merge Err(());
                    }

                    let key = self.work[at(cursor_a)].clone();
                    let k = gallop_left(&mut self.less, &self.temp, &key, 0, len_b, len_b - 1);
                    wins_b = len_b - k;
                    if wins_b > 0 {
                        dest -= wins_b as isize;
                        cursor_temp -= wins_b as isize;
                        let from = at(cursor_temp + 1);
                        self.work[at(dest + 1)..at(dest + 1) + wins_b]
                            .clone_from_slice(&self.temp[from..from + wins_b]);
                        len_b -= wins_b;
                        if len_b == 1 {
                            break 'merge Err(());
                        }
                        // Only an inconsistent comparator gets here.
                        if len_b == 0 {
                            break 'merge Ok(());
                        }
                    }
                    self.work[at(dest)] = self.work[at(cursor_a)].clone();
                    dest -= 1;
                    cursor_a -= 1;
                    len_a -= 1;
                    if len_a == 0 {
                        break 'merge Ok(());
                    }
                }
                min_gallop += 1;
                self.min_gallop = min_gallop;
            }
        };
        match outcome {
            Ok(()) => {
                if len_b > 0 {
                    let to = at(dest - (len_b as isize - 1));
                    self.work[to..to + len_b].clone_from_slice(&self.temp[..len_b]);
                }
            }
            Err(()) => {
                dest -= len_a as isize;
                cursor_a -= len_a as isize;
                copy_within(self.work, at(cursor_a + 1), at(dest + 1), len_a);
                self.work[at(dest)] = self.temp[at(cursor_temp)].clone();
            }
        }
    }
}

fn copy_within<T: Clone>(items: &mut [T], from: usize, to: usize, len: usize) {
    if from < to {
        for offset in (0..len).rev() {
            items[to + offset] = items[from + offset].clone();
        }
    } else {
        for offset in 0..len {
            items[to + offset] = items[from + offset].clone();
        }
    }
}

/// Where `key` belongs in the sorted `items[base..base + len]`: before any equal element.
fn gallop_left<T>(
    less: &mut impl FnMut(&T, &T) -> bool,
    items: &[T],
    key: &T,
    base: usize,
    len: usize,
    hint: usize,
) -> usize {
    let (mut last, mut offset): (isize, isize) = (0, 1);
    let hint_i = hint as isize;
    if less(&items[base + hint], key) {
        let max = (len - hint) as isize;
        while offset < max {
            if !less(&items[base + hint + offset as usize], key) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        last += hint_i;
        offset += hint_i;
    } else {
        let max = hint_i + 1;
        while offset < max {
            if less(&items[base + hint - offset as usize], key) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        let previous = last;
        last = hint_i - offset;
        offset = hint_i - previous;
    }
    last += 1;
    while last < offset {
        let middle = last + ((offset - last) >> 1);
        if less(&items[base + middle as usize], key) {
            last = middle + 1;
        } else {
            offset = middle;
        }
    }
    offset as usize
}

/// Where `key` belongs in the sorted `items[base..base + len]`: after any equal element.
fn gallop_right<T>(
    less: &mut impl FnMut(&T, &T) -> bool,
    items: &[T],
    key: &T,
    base: usize,
    len: usize,
    hint: usize,
) -> usize {
    let (mut last, mut offset): (isize, isize) = (0, 1);
    let hint_i = hint as isize;
    if less(key, &items[base + hint]) {
        let max = hint_i + 1;
        while offset < max {
            if !less(key, &items[base + hint - offset as usize]) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        let previous = last;
        last = hint_i - offset;
        offset = hint_i - previous;
    } else {
        let max = (len - hint) as isize;
        while offset < max {
            if less(key, &items[base + hint + offset as usize]) {
                break;
            }
            last = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max);
        last += hint_i;
        offset += hint_i;
    }
    last += 1;
    while last < offset {
        let middle = last + ((offset - last) >> 1);
        if less(key, &items[base + middle as usize]) {
            offset = middle;
        } else {
            last = middle + 1;
        }
    }
    offset as usize
}
