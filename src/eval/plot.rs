//! A small SVG chart of an evaluation: nDCG@10 and p50/p99 latency per mode.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use super::report::Report;
use super::verdicts::VerdictReport;
use crate::error::{Error, Result};
use crate::surface::State;

type Failure = Box<dyn std::error::Error>;

pub(crate) fn write_svg(report: &Report, path: &Path) -> Result<()> {
    draw(report, path).map_err(|e| Error::InvalidArgument(format!("cannot draw {}: {e}", path.display())))
}

/// One bar per mode for each series, the later series drawn narrower in front.
fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    names: &[&str],
    y_max: f64,
    series: &[(RGBColor, Vec<f64>)],
) -> std::result::Result<(), Failure>
where
    DB::ErrorType: 'static,
{
    let n = names.len();
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d((0..n).into_segmented(), 0.0f64..y_max)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) if *i < n => names[*i].to_owned(),
            _ => String::new(),
        })
        .draw()?;
    for (depth, (color, values)) in series.iter().enumerate() {
        chart.draw_series(
            Histogram::vertical(&chart)
                .style(color.mix(0.6).filled())
                .margin(20 + 10 * depth as u32)
                .data(values.iter().copied().enumerate()),
        )?;
    }
    Ok(())
}

fn draw(report: &Report, path: &Path) -> std::result::Result<(), Failure> {
    let root = SVGBackend::new(path, (960, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(480);
    let names: Vec<&str> = report.modes.iter().map(|m| m.mode.as_str()).collect();
    let ndcg: Vec<f64> = report.modes.iter().map(|m| m.ndcg_10).collect();
    bars(&left, &format!("{}: nDCG@10", report.collection), &names, 1.0, &[(BLUE, ndcg)])?;
    let p99: Vec<f64> = report.modes.iter().map(|m| m.p99_ms).collect();
    let p50: Vec<f64> = report.modes.iter().map(|m| m.p50_ms).collect();
    let y_max = p99.iter().copied().fold(1.0, f64::max) * 1.1;
    bars(&right, "latency per query (ms): p99 behind p50", &names, y_max, &[(RED, p99), (GREEN, p50)])?;
    root.present()?;
    Ok(())
}

pub(crate) fn write_verdict_svg(report: &VerdictReport, path: &Path) -> Result<()> {
    draw_verdicts(report, path).map_err(|e| Error::InvalidArgument(format!("cannot draw {}: {e}", path.display())))
}

/// Per label, the share of questions SUPPORTED (left) and INSUFFICIENT (right).
fn draw_verdicts(report: &VerdictReport, path: &Path) -> std::result::Result<(), Failure> {
    let root = SVGBackend::new(path, (960, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(480);
    let supported = report.shares(State::Supported);
    let names: Vec<&str> = supported.iter().map(|(l, _)| l.as_str()).collect();
    let values: Vec<f64> = supported.iter().map(|(_, v)| *v).collect();
    bars(&left, "share SUPPORTED per label", &names, 1.0, &[(GREEN, values)])?;
    let insufficient: Vec<f64> = report.shares(State::InsufficientEvidence).into_iter().map(|(_, v)| v).collect();
    bars(&right, "share INSUFFICIENT_EVIDENCE per label", &names, 1.0, &[(RED, insufficient)])?;
    root.present()?;
    Ok(())
}
