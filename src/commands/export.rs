//! `marginal export`: a tuned file written as JSON, TOML, a Rust module, a C header, UCI
//! `setoption` lines, or OpenBench's or fishtest's SPSA input (the formats are
//! [`marginal::export`]'s). This side reads the file, works out the date and writes the result.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use marginal::export::{self, CStyle, ExportFormat, ExportOptions};
use marginal::formats::write_atomic;
use marginal::tune::file::TunedFile;

use super::UserError;

/// The reproducible-builds variable that fixes the export date.
const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

/// Arguments of `marginal export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The tuned file (`marginal-tuned/1`, as `marginal tune` writes it).
    file: PathBuf,
    /// The output format.
    #[arg(long, value_parser = format_parser())]
    format: ExportFormat,
    /// Prefix of the constant names (rust and c), e.g. PRUNE_ gives PRUNE_FUTILITY_MARGIN;
    /// upper-cased like the names.
    #[arg(long, default_value = "")]
    prefix: String,
    /// Every row of the margin set, not only the tuned rows (json, toml, rust and c).
    #[arg(long)]
    all: bool,
    /// How the C header declares values: `static const int` or `#define`.
    #[arg(long, value_parser = c_style_parser(), default_value = CStyle::default().name())]
    c_style: CStyle,
    /// Write here (atomically) instead of standard output; its name also names the C include
    /// guard.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace the output file when it exists (without it, marginal refuses to write over one).
    #[arg(long)]
    force: bool,
}

/// `--format`'s values and help come from [`ExportFormat::ALL`].
fn format_parser() -> impl TypedValueParser<Value = ExportFormat> {
    PossibleValuesParser::new(
        ExportFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.summary())),
    )
    .map(|name| ExportFormat::from_name(&name).expect("a listed format"))
}

/// `--c-style`'s values come from [`CStyle::ALL`].
fn c_style_parser() -> impl TypedValueParser<Value = CStyle> {
    PossibleValuesParser::new(CStyle::ALL.map(|s| s.name()))
        .map(|name| CStyle::from_name(&name).expect("a listed style"))
}

/// The export date, `YYYY-MM-DD` in UTC: that of `SOURCE_DATE_EPOCH` when set (so builds and
/// tests reproduce), else today's.
fn export_date() -> Result<String, UserError> {
    match std::env::var_os(SOURCE_DATE_EPOCH) {
        None => Ok(jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()),
        Some(value) => {
            let text = value.to_string_lossy();
            export::date_of_epoch(&text)
                .map_err(|e| UserError(format!("{SOURCE_DATE_EPOCH}={text}: {e}")))
        }
    }
}

/// Says each option given that does nothing with the format (once, naming it, its value and
/// the format), and returns the `--all` and `--prefix` the export uses.
fn idle_for_format(args: &ExportArgs) -> (bool, &str) {
    let format = args.format;
    let idle = [
        (
            args.all && !format.takes_all_rows(),
            "--all".to_string(),
            "json, toml, rust or c (this one writes the tuned rows only)",
        ),
        (
            args.c_style != CStyle::default() && format != ExportFormat::C,
            format!("--c-style {}", args.c_style.name()),
            "c",
        ),
        (
            !args.prefix.is_empty() && !format.takes_prefix(),
            format!("--prefix {}", args.prefix),
            "rust or c (it names constants)",
        ),
    ];
    for (_, option, for_what) in idle.iter().filter(|(given, ..)| *given) {
        let name = format.name();
        eprintln!(
            "warning: {option} does nothing with --format {name}: it is for --format {for_what}"
        );
    }
    let prefix = if format.takes_prefix() {
        args.prefix.as_str()
    } else {
        ""
    };
    (args.all && format.takes_all_rows(), prefix)
}

/// Runs the command.
pub fn run(args: ExportArgs) -> Result<()> {
    export::check_prefix(&args.prefix).map_err(|e| UserError(format!("--prefix: {e}")))?;
    let (all, prefix) = idle_for_format(&args);
    super::idle_force(args.force && args.out.is_none(), "--out");
    if let Some(out) = &args.out {
        super::not_an_input(out, "--out", &[("the exported file", args.file.as_path())])?;
        super::fresh_output(out, "--out", args.force)?;
    }
    let date = export_date()?;
    let file = TunedFile::read(&args.file).map_err(UserError::from_display)?;
    if let Some(out) = &args.out {
        // What the file records is read again by `check`: never replaced, even with --force.
        let recorded = super::recorded_inputs(&file, &args.file);
        let inputs: Vec<(&str, &std::path::Path)> = recorded
            .iter()
            .map(|(what, path)| (*what, path.as_path()))
            .collect();
        super::not_an_input(out, "--out", &inputs)?;
    }
    let source = args.file.to_string_lossy();
    if file.engine.is_none() {
        super::say_idle_in_file(&source, &file.setting().margins());
    }
    let stem = args
        .out
        .as_ref()
        .filter(|p| !marginal::formats::is_stream(p))
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy());
    let options = ExportOptions {
        format: args.format,
        source: &source,
        date: &date,
        prefix,
        all,
        c_style: args.c_style,
        guard_stem: stem.as_deref(),
    };
    let text = export::render(&file, &options).map_err(UserError::from_display)?;
    // On stderr, so the export itself is unchanged: whether its objective is trusted.
    eprintln!(
        "calibration: {}",
        super::calibration_note(file.calibration.as_ref(), &file.margins)
    );
    match &args.out {
        None => print!("{text}"),
        Some(path) => {
            write_atomic(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "{} export of {} written to {}",
                args.format.name(),
                args.file.display(),
                path.display()
            );
        }
    }
    Ok(())
}
