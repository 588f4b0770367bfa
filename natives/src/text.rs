//! Display width of terminal text (unicode-width): wide CJK and emoji take two cells,
//! combining marks none.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` cut to at most `max_width` cells, `ellipsis` ending it when something was cut
/// (the ellipsis counts toward the width).
pub fn truncate(text: &str, max_width: usize, ellipsis: &str) -> String {
    if width(text) <= max_width {
        return text.to_string();
    }
    let room = max_width.saturating_sub(width(ellipsis));
    let mut used = 0;
    let mut out = String::new();
    for ch in text.chars() {
        let w = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(ch);
    }
    if width(ellipsis) <= max_width {
        out.push_str(ellipsis);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_cells() {
        assert_eq!(width("ab"), 2);
        assert_eq!(width("日本"), 4);
        assert_eq!(width("e\u{301}"), 1);
    }

    #[test]
    fn truncation_never_splits_a_wide_character() {
        assert_eq!(truncate("日本語テキスト", 7, "…"), "日本語…");
        assert_eq!(truncate("short", 10, "…"), "short");
        assert_eq!(truncate("abcdef", 4, "..."), "a...");
    }
}
