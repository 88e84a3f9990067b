//! docs/parameters.md's parameter table is generated from the one parameter table: keep them in sync
//! (`cargo run --release -- params --markdown`).

#[test]
fn readme_parameter_table_is_current() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/parameters.md"))
            .unwrap();
    let table = marginal::params::markdown_table();
    assert!(
        readme.contains(&table),
        "docs/parameters.md's parameter table is stale; paste the output of `marginal params --markdown`"
    );
}
