//! The transcript sort: stable for consistent comparisons, and V8's exact steps otherwise.

use agent_chunks::reading::timsort::sort_by;

/// A small generator so the tests need no dependencies.
fn numbers(seed: u64, count: usize, range: u64) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % range
        })
        .collect()
}

#[test]
fn sorts_like_a_stable_sort_when_comparisons_are_consistent() {
    for (seed, count) in [
        (1, 0),
        (2, 1),
        (3, 10),
        (4, 63),
        (5, 64),
        (6, 65),
        (7, 1000),
        (8, 5000),
    ] {
        // Few distinct keys: lots of ties, so stability shows.
        let items: Vec<(u64, usize)> = numbers(seed, count, 17).into_iter().zip(0..).collect();
        let mut ours = items.clone();
        sort_by(&mut ours, |a, b| a.0 < b.0);
        let mut expected = items;
        expected.sort_by_key(|item| item.0);
        assert_eq!(ours, expected, "seed {seed}, {count} items");
    }
}

#[test]
fn sorts_presorted_and_reversed_runs() {
    let mut ascending: Vec<u32> = (0..3000).collect();
    sort_by(&mut ascending, |a, b| a < b);
    assert!(ascending.windows(2).all(|w| w[0] <= w[1]));
    let mut descending: Vec<u32> = (0..3000).rev().collect();
    sort_by(&mut descending, |a, b| a < b);
    assert_eq!(descending, (0..3000).collect::<Vec<_>>());
}

#[test]
fn an_always_false_comparator_leaves_the_order_alone() {
    // Every comparison "equal" (as NaN reads): V8 keeps the input order.
    let mut items: Vec<u32> = (0..500).rev().collect();
    sort_by(&mut items, |_, _| false);
    assert_eq!(items, (0..500).rev().collect::<Vec<_>>());
}

#[test]
fn nan_keys_split_the_sort_as_v8_does() {
    // [3, NaN, 1]: 3 vs NaN is "equal", NaN vs 1 is "equal", so insertion never moves 1
    // past NaN; V8 gives [3, NaN, 1] unchanged.
    let mut items = [3.0, f64::NAN, 1.0];
    sort_by(&mut items, |a, b| a - b < 0.0);
    assert_eq!(items[0], 3.0);
    assert!(items[1].is_nan());
    assert_eq!(items[2], 1.0);
    // [3, 1, NaN]: the descending run [3, 1] is reversed first.
    let mut items = [3.0, 1.0, f64::NAN];
    sort_by(&mut items, |a, b| a - b < 0.0);
    assert_eq!(&items[..2], &[1.0, 3.0]);
}
