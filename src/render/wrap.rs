//! Prose for a terminal: lines filled to the width at word boundaries, so
//! a sentence never breaks inside a word ("reclai / m"). A word longer than
//! the width keeps its own line whole (an id, a path) rather than being cut.

/// `text` filled to `width` columns (None: unchanged). Each line of `text`
/// is filled on its own; continuation lines start with `indent`. Runs of
/// spaces between words collapse to one where a line is broken.
pub fn fill(text: &str, width: Option<u16>, indent: &str) -> String {
    let Some(width) = width.map(usize::from) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + text.len() / width.max(1) * 2);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        fill_line(line, width, indent, &mut out);
    }
    out
}

fn fill_line(line: &str, width: usize, indent: &str, out: &mut String) {
    if line.chars().count() <= width {
        out.push_str(line);
        return;
    }
    // the line's own leading spaces stay (an indented note keeps its indent)
    let lead_len = line.len() - line.trim_start_matches(' ').len();
    let (lead, rest) = line.split_at(lead_len);
    out.push_str(lead);
    let mut col = lead.chars().count();
    let mut at_start = true;
    for word in rest.split(' ').filter(|w| !w.is_empty()) {
        let len = word.chars().count();
        if !at_start && col + 1 + len > width {
            out.push('\n');
            out.push_str(indent);
            col = indent.chars().count();
            at_start = true;
        }
        if !at_start {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += len;
        at_start = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_at_word_boundaries_and_never_splits_a_word() {
        let text = "Verdict: reclaim first — 11 GPUs sat unallocated or idle in 95% of hours.";
        let filled = fill(text, Some(30), "");
        assert_eq!(
            filled,
            "Verdict: reclaim first — 11\nGPUs sat unallocated or idle\nin 95% of hours."
        );
        for line in filled.lines() {
            assert!(line.chars().count() <= 30, "{line}");
        }
        // the words, in order, are the text's words
        assert_eq!(
            filled.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
    }

    #[test]
    fn keeps_short_lines_indents_and_long_words() {
        assert_eq!(fill("a b\nc", Some(10), ""), "a b\nc");
        assert_eq!(
            fill("  note: aaa bbb ccc", Some(12), "    "),
            "  note: aaa\n    bbb ccc"
        );
        assert_eq!(
            fill("x GPU-16d14904-aaaa-bbbb y", Some(8), ""),
            "x\nGPU-16d14904-aaaa-bbbb\ny"
        );
        assert_eq!(fill("no limit at all", None, ""), "no limit at all");
    }
}
