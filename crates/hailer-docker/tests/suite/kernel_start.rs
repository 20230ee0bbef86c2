//! What the kernel's start reads inside the image: every module of its environment is compiled
//! ahead, so no start spends time compiling Python (the root file system is read-only at run
//! time, so a module without bytecode would be compiled again on every start).

use std::process::Command;

use crate::common::{engine, kernel_image};

/// Lists the `.py` files under the environment's `site-packages` with no bytecode for the
/// image's own interpreter, then the count of those with it.
const FIND_UNCOMPILED: &str = r#"
import importlib.util, pathlib, sys
site = next(p for p in map(pathlib.Path, sys.path) if p.name == "site-packages")
missing, compiled = [], 0
for source in site.rglob("*.py"):
    if pathlib.Path(importlib.util.cache_from_source(str(source))).is_file():
        compiled += 1
    else:
        missing.append(str(source))
print("\n".join(missing[:20]))
print(f"compiled={compiled} missing={len(missing)}")
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_module_of_the_kernel_environment_is_compiled_ahead() {
    let engine = engine().await;
    let image = kernel_image(&engine).await;
    let output = Command::new("docker")
        .args(["run", "--rm", "--network", "none", "--read-only", &image])
        .args(["python", "-c", FIND_UNCOMPILED])
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = printed.lines().last().unwrap_or_default();
    let compiled: usize = summary
        .split_once("compiled=")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|count| count.parse().ok())
        .unwrap_or(0);
    // marimo, Polars, DuckDB and the rest come to thousands of modules.
    assert!(compiled > 1000, "{printed}");
    assert!(
        summary.ends_with(" missing=0"),
        "modules without bytecode in the kernel image:\n{printed}"
    );
}
