//! A small SVG chart of an evaluation: nDCG@10 and p50/p99 latency per mode.

use plotters::prelude::*;
use std::path::Path;

use super::report::Report;
use crate::error::{Error, Result};

pub fn write_svg(report: &Report, path: &Path) -> Result<()> {
    draw(report, path).map_err(|e| Error::InvalidArgument(format!("cannot draw {}: {e}", path.display())))
}

fn mode_name(report: &Report, i: usize) -> String {
    serde_json::to_value(report.modes[i].mode).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn draw(report: &Report, path: &Path) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (960, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(480);
    let n = report.modes.len();

    let mut quality = ChartBuilder::on(&left)
        .caption(format!("{}: nDCG@10", report.collection), ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d((0..n).into_segmented(), 0.0f64..1.0)?;
    quality
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) if *i < n => mode_name(report, *i),
            _ => String::new(),
        })
        .draw()?;
    quality.draw_series(
        Histogram::vertical(&quality)
            .style(BLUE.mix(0.6).filled())
            .margin(20)
            .data(report.modes.iter().enumerate().map(|(i, m)| (i, m.ndcg_10))),
    )?;

    let max_ms = report.modes.iter().map(|m| m.p99_ms).fold(1.0, f64::max) * 1.1;
    let mut latency = ChartBuilder::on(&right)
        .caption("latency per query (ms): p50 and p99", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d((0..n).into_segmented(), 0.0f64..max_ms)?;
    latency
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) if *i < n => mode_name(report, *i),
            _ => String::new(),
        })
        .draw()?;
    latency.draw_series(
        Histogram::vertical(&latency)
            .style(RED.mix(0.4).filled())
            .margin(20)
            .data(report.modes.iter().enumerate().map(|(i, m)| (i, m.p99_ms))),
    )?;
    latency.draw_series(
        Histogram::vertical(&latency)
            .style(GREEN.mix(0.7).filled())
            .margin(30)
            .data(report.modes.iter().enumerate().map(|(i, m)| (i, m.p50_ms))),
    )?;
    root.present()?;
    Ok(())
}
