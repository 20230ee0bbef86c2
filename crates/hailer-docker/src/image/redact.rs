//! Masks the user and password of every `scheme://user:password@host` in a line of build
//! output: pip names the index it reads from, and an index address may carry credentials.

/// `line` with the user-info part of every URL replaced by `****`.
pub(super) fn mask_userinfo(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        // The authority ends at the path, the query, white space or quotes.
        let end = after
            .find(|c: char| {
                c == '/' || c == '?' || c == '#' || c.is_whitespace() || "\"'<>".contains(c)
            })
            .unwrap_or(after.len());
        let authority = &after[..end];
        match authority.rfind('@') {
            Some(at_sign) => {
                out.push_str("****");
                out.push_str(&authority[at_sign..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_urls_are_masked_and_nothing_else_changes() {
        let cases = [
            (
                "Looking in indexes: https://ana:s3cr3t@mirror.example/simple",
                "Looking in indexes: https://****@mirror.example/simple",
            ),
            (
                "a http://u@h:81/x and 'https://p:w@q' b",
                "a http://****@h:81/x and 'https://****@q' b",
            ),
            ("no url here", "no url here"),
            (
                "https://mirror.example/simple",
                "https://mirror.example/simple",
            ),
            ("ends with ://", "ends with ://"),
            ("x://a:b@c@d/e", "x://****@d/e"),
        ];
        for (line, masked) in cases {
            assert_eq!(mask_userinfo(line), masked);
        }
    }
}
