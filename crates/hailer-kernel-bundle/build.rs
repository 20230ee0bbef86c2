//! Lists the kernel package's files from its folder, so a new module is embedded, installed and
//! part of the contract without anyone adding it to a list.
//!
//! The list is `pyproject.toml` and `README.md` (the package's metadata beside the folder), then
//! every file under `kernel-image/hailer_kernel/` in sorted path order, leaving out Python's
//! caches and hidden files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let kernel_image = manifest.join("../../kernel-image");
    let package = kernel_image.join("hailer_kernel");
    println!("cargo::rerun-if-changed={}", package.display());
    let mut modules = Vec::new();
    collect(&package, "hailer_kernel", &mut modules)?;
    modules.sort();
    let mut files = vec![
        (
            "pyproject.toml".to_owned(),
            kernel_image.join("pyproject.toml"),
        ),
        ("README.md".to_owned(), kernel_image.join("README.md")),
    ];
    files.extend(modules);
    let mut code = String::from(
        "/// The files of the `hailer-kernel` Python package, relative to its folder: the metadata,\n\
         /// then every file of `hailer_kernel/` in sorted path order (listed by the build script).\n",
    );
    writeln!(
        code,
        "pub const PACKAGE_FILES: [(&str, &str); {}] = [",
        files.len()
    )?;
    for (name, path) in &files {
        let path = path.canonicalize()?;
        writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )?;
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("package_files.rs");
    std::fs::write(out, code)?;
    Ok(())
}

/// Every file under `dir`, named `<prefix>/<relative path>` with `/` separators.
fn collect(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<(), Box<dyn std::error::Error>> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "__pycache__" || name.ends_with(".pyc") {
            continue;
        }
        let relative = format!("{prefix}/{name}");
        if entry.file_type()?.is_dir() {
            collect(&entry.path(), &relative, files)?;
        } else {
            files.push((relative, entry.path()));
        }
    }
    Ok(())
}
