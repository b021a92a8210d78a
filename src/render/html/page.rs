//! The page around the sections: head, inline style, the embedded report.
//! Nothing here loads anything: the Content-Security-Policy forbids every
//! fetch (no scripts, fonts, images or styles from outside the file), so a
//! page that tried would log an error instead of leaving the laptop.
use super::escape::{json_in_script, text};

/// The id of the script element that carries the report's JSON.
pub const REPORT_SCRIPT_ID: &str = "gpuaudit-report";

const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// System fonts only (no web fonts); colours as variables so dark mode and
/// print swap the palette, not the rules.
const STYLE: &str = r#"
:root {
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --rule: #d0d7de; --panel: #f6f8fa;
  --observed: #afb8c1; --held: #54aeff; --active: #0969da; --sm: #8250df; --tensor: #bf3989;
  --useful: #1a7f37; --idle: #cf222e; --unalloc: #d4a72c;
  --starved: #fb8f44; --underfilled: #e3b341; --membound: #8250df; --notensor: #bf3989;
  --unprofiled: #54aeff; --unknown: #8c959f; --unmeasured: #d0d7de;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --rule: #30363d; --panel: #161b22;
    --observed: #484f58; --held: #1f6feb; --active: #58a6ff; --sm: #a371f7; --tensor: #f778ba;
    --useful: #3fb950; --idle: #f85149; --unalloc: #d29922;
    --starved: #db6d28; --underfilled: #bb8009; --membound: #a371f7; --notensor: #f778ba;
    --unprofiled: #388bfd; --unknown: #6e7681; --unmeasured: #30363d;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); overflow-wrap: break-word;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h3 { font-size: 1.02rem; margin: 1.25rem 0 .4rem; }
h2.appendix { margin-top: 3rem; border-bottom: 2px solid var(--rule); color: var(--muted); }
.verdict { font-size: 1.3rem; font-weight: 700; margin: .5rem 0; }
.plan { font-size: 1.05rem; }
ol.findings li, ul.findings li { margin: .35rem 0; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--rule); }
p, li { max-width: 48rem; }
.muted, .window, figcaption, .note { color: var(--muted); }
.headline { font-size: 1.15rem; font-weight: 600; background: var(--panel); border-left: 4px solid var(--idle);
  padding: .75rem 1rem; margin: .75rem 0; }
dl.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(10.5rem, 1fr)); gap: .5rem; margin: 1rem 0; }
dl.figures div { background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; padding: .5rem .75rem; }
dl.figures dt { font-size: .8rem; color: var(--muted); }
dl.figures dd { margin: 0; font-size: 1.35rem; font-weight: 600; font-variant-numeric: tabular-nums; }
figure { margin: .75rem 0; }
svg.chart { width: 100%; height: auto; display: block; }
.bars { margin: .5rem 0; }
.bar-row { display: grid; grid-template-columns: minmax(5rem, 10rem) minmax(0, 1fr); column-gap: .6rem; align-items: center; margin: .25rem 0; }
.bar-label { text-align: right; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bar-track { position: relative; height: 1rem; }
.bar { position: absolute; left: 0; top: 0; height: 100%; border-radius: 2px; }
.bar-value { grid-column: 2; font-size: .85rem; color: var(--muted); font-variant-numeric: tabular-nums; }
.tl svg.timeline { display: block; width: 100%; height: 11rem; border-bottom: 1px solid var(--rule); }
.tl path.c-observed { opacity: .55; }
.tl-max, .tl-axis { font-size: .8rem; color: var(--muted); }
.tl-axis { display: flex; justify-content: space-between; gap: 1rem; }
.scroll { overflow-x: auto; max-width: 100%; }
details#glossary { margin-top: 2.5rem; border: 1px solid var(--rule); border-radius: 6px; padding: .5rem .9rem; }
details#glossary summary { font-weight: 600; cursor: pointer; }
dl.glossary dt { font-weight: 600; margin-top: .6rem; }
dl.glossary dd { margin: .1rem 0 0 0; }
.c-observed { fill: var(--observed); } .c-held { fill: var(--held); } .c-active { fill: var(--active); }
.c-sm_active { fill: var(--sm); } .c-tensor_active { fill: var(--tensor); } .c-useful { fill: var(--useful); }
.c-idle_held { fill: var(--idle); } .c-unallocated { fill: var(--unalloc); }
.bar.c-observed { background: var(--observed); } .bar.c-held { background: var(--held); } .bar.c-active { background: var(--active); }
.bar.c-sm_active { background: var(--sm); } .bar.c-tensor_active { background: var(--tensor); } .bar.c-useful { background: var(--useful); }
.bar.c-idle_held { background: var(--idle); }
.l-held_unknown { fill: var(--unknown); background: var(--unknown); } .l-unallocated { fill: var(--unalloc); background: var(--unalloc); }
.l-unmeasured { fill: var(--unmeasured); background: var(--unmeasured); } .l-idle { fill: var(--idle); background: var(--idle); }
.l-starved { fill: var(--starved); background: var(--starved); } .l-underfilled { fill: var(--underfilled); background: var(--underfilled); }
.l-memory_bound { fill: var(--membound); background: var(--membound); } .l-no_tensor { fill: var(--notensor); background: var(--notensor); }
.l-busy_unprofiled { fill: var(--unprofiled); background: var(--unprofiled); } .l-effective { fill: var(--useful); background: var(--useful); }
.key { display: inline-block; width: .8em; height: .8em; margin-right: .35em; vertical-align: -.05em; border-radius: 2px; }
.k-observed { background: var(--observed); } .k-held { background: var(--held); } .k-active { background: var(--active); }
.k-idle_held { background: var(--idle); } .k-unallocated { background: var(--unalloc); }
@media (max-width: 600px) {
  main { padding: 1rem .75rem 2rem; }
  h1 { font-size: 1.35rem; }
  .verdict { font-size: 1.15rem; }
  table { font-size: .85rem; }
}
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--rule); vertical-align: top; }
th { font-weight: 600; background: var(--panel); }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.t { white-space: nowrap; }
code { font-size: .9em; overflow-wrap: anywhere; }
footer { margin-top: 2.5rem; font-size: .8rem; color: var(--muted); }
@media print {
  @page { size: A4; margin: 14mm 12mm; }
  body { font-size: 10.5pt; background: #fff; color: #000; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  figure, tr, dl.figures, .headline { break-inside: avoid; }
  thead { display: table-header-group; }
  .scroll { overflow: visible; }
  table { font-size: 8.5pt; }
  .tl svg.timeline { height: 45mm; }
  .bar, .key, svg { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"#;

/// The whole document: `title` is plain text, `body` ready HTML, `report_json`
/// the report as JSON, `cuts` the lists cut short in it ("" when none).
pub fn document(title: &str, body: &str, report_json: &str, cuts: &str) -> String {
    let mut s = String::with_capacity(body.len() + report_json.len() + STYLE.len() + 1024);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
    ));
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str("<meta name=\"generator\" content=\"gpuaudit\">\n");
    s.push_str(&format!(
        "<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        text(title)
    ));
    s.push_str(body);
    s.push_str("</main>\n");
    let cut_attr = if cuts.is_empty() {
        String::new()
    } else {
        format!(" data-cut=\"{}\"", text(cuts))
    };
    s.push_str(&format!(
        "<script type=\"application/json\" id=\"{REPORT_SCRIPT_ID}\"{cut_attr}>{}</script>\n",
        json_in_script(report_json)
    ));
    s.push_str("</body>\n</html>\n");
    s
}
