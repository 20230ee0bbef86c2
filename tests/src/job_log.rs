//! Reading what a kernel job or a session's environment set-up wrote to its log.

/// The installer's lines of one package each: pip's `Processing`/`Collecting`, uv's `+ name==x`.
pub fn package_lines(log: &str) -> Vec<&str> {
    log.lines()
        .map(str::trim)
        .filter(|line| {
            line.starts_with("Processing ")
                || line.starts_with("Collecting ")
                || (line.starts_with("+ ") && line.contains("=="))
        })
        .collect()
}
