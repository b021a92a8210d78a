//! Text helpers every layer shares: the one shortener (echoed input in an
//! error line, a table cell, a preview of a header) and the one edit distance.

/// What stands for the characters a shortened text leaves out.
#[derive(Clone, Copy)]
pub enum Mark {
    /// "…": a table cell, an id, a preview
    Ellipsis,
    /// " …(N characters elided)… ": an error line, where the count tells the
    /// reader how much of their input is not shown
    Count,
}

impl Mark {
    /// The mark for `elided` characters left out.
    pub fn text(self, elided: usize) -> String {
        match self {
            Mark::Ellipsis => "…".to_string(),
            Mark::Count => format!(" …({elided} characters elided)… "),
        }
    }

    /// The widest the mark can be for a text of `len` characters.
    pub fn widest(self, len: usize) -> usize {
        self.text(len).chars().count()
    }
}

/// `s` in at most `max` characters, with the [`Mark::Ellipsis`].
pub fn shorten(s: &str, max: usize) -> String {
    shorten_with(s, max, Mark::Ellipsis)
}

/// `s` in at most `max` characters (never under the mark and two kept): its
/// head and tail around `mark`, so two ids that differ only at the end still
/// differ, and a file's name and its extension both stay. `s` itself when it
/// fits. Counts characters, not bytes.
pub fn shorten_with(s: &str, max: usize, mark: Mark) -> String {
    // a text that fits costs at most `max` characters read
    if s.char_indices().nth(max).is_none() {
        return s.to_string();
    }
    let len = s.chars().count();
    // the widest the mark can be, so the result never exceeds `max`
    let widest = mark.widest(len);
    let keep = max.saturating_sub(widest).max(2);
    if keep + widest >= len {
        return s.to_string();
    }
    let (head, tail) = (keep.div_ceil(2), keep / 2);
    let head_end = s.char_indices().nth(head).map_or(s.len(), |(i, _)| i);
    let tail_start = match tail {
        0 => s.len(),
        t => s.char_indices().rev().nth(t - 1).map_or(0, |(i, _)| i),
    };
    format!(
        "{}{}{}",
        &s[..head_end],
        mark.text(len - keep),
        &s[tail_start..]
    )
}

/// Levenshtein distance over characters, for "did you mean" suggestions
/// (metric names, GPU models). clap's own suggestions use the same crate.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_middle_goes_and_both_ends_stay() {
        assert_eq!(shorten("chat-serve-0", 28), "chat-serve-0");
        assert_eq!(
            shorten("GPU-16d14904-aaaa-bbbb-cccc-1234567890ab", 13),
            "GPU-16…7890ab"
        );
        assert_eq!(shorten("ééééééé", 5), "éé…éé");
        // never under two kept characters and the mark
        assert_eq!(shorten("abcdefgh", 1), "a…h");
    }

    #[test]
    fn the_counted_mark_says_how_much_went() {
        let s = "a".repeat(100) + &"b".repeat(100);
        let short = shorten_with(&s, 60, Mark::Count);
        assert!(short.chars().count() <= 60, "{short}");
        // the widest mark, " …(200 characters elided)… ", is 27 characters:
        // 60 - 27 = 33 kept, 17 at the head and 16 at the tail, 167 elided
        assert_eq!(
            short,
            format!(
                "{} …(167 characters elided)… {}",
                "a".repeat(17),
                "b".repeat(16)
            )
        );
        // a mark (26 characters) wider than the text it would leave out is
        // no shortening: the text stays as it is
        assert_eq!(shorten_with(&s[..20], 10, Mark::Count), s[..20]);
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("held_ratio", "held_ratoi"), 2);
        assert_eq!(edit_distance("ä100", "a100"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
