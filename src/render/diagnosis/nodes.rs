//! The node view: node-held, stranded and free-node hours, then the hosts
//! with the most stranded cards.
use super::{Layout, md_row};
use crate::audit::diagnosis::Nodes;
use crate::audit::diagnosis::nodes::NodeHost;
use crate::render::fmt::{hours, usd};
use crate::render::grid::{Column, Grid};
use crate::render::wrap::fill;

/// "Nodes: 4.00 GPU-h on node-held hosts; stranded 3.50 GPU-h ($7.00) ...";
/// `unit` is "GPU-h", or "GPUs" for a snapshot.
pub fn summary(n: &Nodes, unit: &str) -> String {
    format!(
        "Nodes: {} {unit} on hosts someone held; stranded {} {unit} ({}): cards not held on those hosts, paid for if nodes are rented whole; free-node {} {unit} ({}): cards on hosts nobody held\n",
        hours(n.node_held_gpu_hours),
        hours(n.stranded_gpu_hours),
        usd(n.stranded_usd),
        hours(n.free_node_gpu_hours),
        usd(n.free_node_usd)
    )
}

fn cells(h: &NodeHost) -> Vec<String> {
    vec![
        h.host.clone(),
        h.gpus.to_string(),
        hours(h.node_held_gpu_hours),
        hours(h.held_gpu_hours),
        hours(h.stranded_gpu_hours),
        usd(h.stranded_usd),
    ]
}

fn shown_line(shown: usize, n: &Nodes, snapshot: bool) -> String {
    format!(
        "top {shown} of {} hosts by stranded {}\n",
        n.hosts_total.max(n.hosts.len()),
        if snapshot { "GPUs" } else { "GPU-hours" }
    )
}

/// The summary filled to the width, then the first `top` hosts.
pub fn table(n: &Nodes, layout: Layout) -> String {
    let unit = if layout.snapshot { "GPUs" } else { "GPU-h" };
    let mut out = fill(&summary(n, unit), layout.width, "  ");
    if n.hosts.is_empty() {
        return out;
    }
    let mut g = Grid::new(vec![
        Column::new("host").label(),
        Column::new("GPUs").right(),
        Column::new(format!("node-held {unit}"))
            .right()
            .drop_rank(1),
        Column::new(format!("held {unit}")).right().drop_rank(2),
        Column::new(format!("stranded {unit}")).right(),
        Column::new(format!(
            "stranded USD{}",
            if layout.snapshot { "/h" } else { "" }
        ))
        .right(),
    ]);
    let shown = n.hosts.len().min(layout.top);
    for h in n.hosts.iter().take(shown) {
        g.row(cells(h));
    }
    out.push_str(&g.render_with_note(layout.width));
    out.push_str(&shown_line(shown, n, layout.snapshot));
    out
}

pub fn markdown(n: &Nodes) -> String {
    let mut out = format!("\n### Nodes: rent 8, use 2\n\n{}", summary(n, "GPU-h"));
    if n.hosts.is_empty() {
        return out;
    }
    out.push('\n');
    out.push_str(&md_row(
        &[
            "host",
            "GPUs",
            "node-held GPU-h",
            "held GPU-h",
            "stranded GPU-h",
            "stranded USD",
        ]
        .map(String::from),
    ));
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    for h in &n.hosts {
        out.push_str(&md_row(&cells(h)));
    }
    out.push_str(&format!("\n{}", shown_line(n.hosts.len(), n, false)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> Nodes {
        Nodes {
            node_held_gpu_hours: 4.0,
            stranded_gpu_hours: 3.5,
            free_node_gpu_hours: 8.0,
            stranded_usd: Some(7.0),
            free_node_usd: Some(16.0),
            hosts_total: 2,
            hosts: vec![NodeHost {
                host: "node-a".to_string(),
                gpus: 4,
                node_held_gpu_hours: 4.0,
                held_gpu_hours: 0.5,
                stranded_gpu_hours: 3.5,
                stranded_usd: Some(7.0),
            }],
        }
    }

    #[test]
    fn summary_and_hosts_carry_the_figures() {
        let layout = Layout {
            top: 10,
            ..Layout::default()
        };
        let text = table(&nodes(), layout);
        assert!(text.contains("stranded 3.50 GPU-h ($7.00)"), "{text}");
        assert!(text.contains("free-node 8.00 GPU-h ($16.00)"), "{text}");
        assert!(text.contains("node-a"), "{text}");
        assert!(
            text.contains("top 1 of 2 hosts by stranded GPU-hours"),
            "{text}"
        );
        // --top cuts the list and says of how many
        let mut many = nodes();
        many.hosts_total = 144;
        many.hosts.push(NodeHost {
            host: "node-b".to_string(),
            ..many.hosts[0].clone()
        });
        let one = table(&many, Layout { top: 1, ..layout });
        assert!(
            one.contains("top 1 of 144 hosts") && !one.contains("node-b"),
            "{one}"
        );
        let md = markdown(&nodes());
        assert!(
            md.contains("| node-a | 4 | 4.00 | 0.50 | 3.50 | $7.00 |"),
            "{md}"
        );
    }
}
