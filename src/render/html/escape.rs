//! Escaping for the three contexts the page writes into: element text,
//! attribute values and the embedded JSON. Every string that comes from the
//! data (job, user, team and host names are user input) goes through one of
//! these, so a label can never become markup.

/// Text content and double-quoted attribute values: `& < > " '` as entities.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // control characters other than tab/newline are not valid in HTML text
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// JSON made safe inside `<script type="application/json">`: the only way
/// out of a script element is `</`, and `<!--` can change how the parser
/// reads it, so every `<` becomes `\u003c` (still the same JSON string).
/// U+2028/U+2029 are escaped too, for readers that treat them as newlines.
pub fn json_in_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for ch in json.chars() {
        match ch {
            '<' => out.push_str("\\u003c"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_text() {
        assert_eq!(
            text("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(text(r#"a&b "c" 'd'"#), "a&amp;b &quot;c&quot; &#39;d&#39;");
    }

    #[test]
    fn json_cannot_close_the_script() -> anyhow::Result<()> {
        let raw =
            serde_json::to_string(&serde_json::json!({"job": "</script><script>x()</script>"}))?;
        let safe = json_in_script(&raw);
        assert!(!safe.contains("</"), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe)?;
        assert_eq!(back["job"], "</script><script>x()</script>");
        Ok(())
    }
}
