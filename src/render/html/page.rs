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
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --rule: #30363d; --panel: #161b22;
    --observed: #484f58; --held: #1f6feb; --active: #58a6ff; --sm: #a371f7; --tensor: #f778ba;
    --useful: #3fb950; --idle: #f85149; --unalloc: #d29922;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
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
svg.chart text { fill: var(--fg); font-size: 13px; font-family: inherit; }
svg.chart text.value { font-variant-numeric: tabular-nums; }
.c-observed { fill: var(--observed); } .c-held { fill: var(--held); } .c-active { fill: var(--active); }
.c-sm_active { fill: var(--sm); } .c-tensor_active { fill: var(--tensor); } .c-useful { fill: var(--useful); }
.c-idle_held { fill: var(--idle); } .c-unallocated { fill: var(--unalloc); }
.key { display: inline-block; width: .8em; height: .8em; margin-right: .35em; vertical-align: -.05em; border-radius: 2px; }
.k-observed { background: var(--observed); } .k-held { background: var(--held); } .k-active { background: var(--active); }
.k-idle_held { background: var(--idle); } .k-unallocated { background: var(--unalloc); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--rule); vertical-align: top; }
th { font-weight: 600; background: var(--panel); }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.t { white-space: nowrap; }
code { font-size: .9em; overflow-wrap: anywhere; }
footer { margin-top: 2.5rem; font-size: .8rem; color: var(--muted); }
@media print {
  @page { size: auto; margin: 14mm 12mm; }
  body { font-size: 10.5pt; background: #fff; color: #000; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  figure, tr, dl.figures, .headline { break-inside: avoid; }
  thead { display: table-header-group; }
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
