//! Compiling and running what `marginal export` writes: a program run to success, the C
//! compiler, and the `NAME=value` lines the compiled programs print.

use std::collections::BTreeMap;
use std::process::Command;

/// Runs a program, panicking with its output unless it succeeds; returns its standard output.
pub fn run_ok(command: &mut Command, what: &str) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {command:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({command:?}):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `NAME=value` lines of a compiled program, as a map.
pub fn assignments(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// The Rust compiler: `$RUSTC`, else `rustc`.
pub fn rustc() -> std::ffi::OsString {
    std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())
}

/// Compiles `main.rs` in `dir` with `-D warnings` and returns what the program prints.
pub fn run_rust_main(dir: &std::path::Path) -> String {
    run_ok(
        Command::new(rustc())
            .args([
                "--edition",
                "2021",
                "-D",
                "warnings",
                "main.rs",
                "-o",
                "main",
            ])
            .current_dir(dir),
        "rustc main.rs",
    );
    run_ok(&mut Command::new(dir.join("main")), "the Rust program")
}

/// The C compiler: `$CC`, else `cc`. A machine without one fails the test, naming what is
/// missing, rather than skipping the check.
pub fn c_compiler() -> std::ffi::OsString {
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let works = Command::new(&cc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        works,
        "no C compiler: `{} --version` failed; install one (gcc or clang) or set CC, since the C export's compile check cannot run without it",
        cc.to_string_lossy()
    );
    cc
}

/// The warnings a C export must compile without.
pub const STRICT_C: [&str; 6] = [
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pedantic",
    "-Wunused",
];
