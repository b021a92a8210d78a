//! Accumulators for layers and dollars (docs/semantics.md §4 and §6): one
//! `Tally` for the fleet, one per showback group, one per GPU.
use super::model::{Cost, GroupCost, Layer, Layers, MonthlyRunRate, Ratios, WaterfallStep};
use crate::metric::{
    AUDITED, Activity, DEVICE_UTIL, HAS_IDLE_USD, IS_RATIO, SM_ACTIVE, Slot, TENSOR_ACTIVE,
};
use crate::timeparse::US_PER_HOUR;

/// The deepest layer not_useful_usd is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    Useful,
    TensorActive,
    SmActive,
    Active,
}

impl Basis {
    /// The activity slot of the basis metric (None: MFU, from the jobs file).
    pub fn slot(self) -> Option<Slot> {
        match self {
            Basis::Useful => None,
            Basis::TensorActive => Some(TENSOR_ACTIVE),
            Basis::SmActive => Some(SM_ACTIVE),
            Basis::Active => Some(DEVICE_UTIL),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Basis::Useful => "useful",
            Basis::TensorActive => "tensor_active",
            Basis::SmActive => "sm_active",
            Basis::Active => "active",
        }
    }
}

/// One sample as the tally needs it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Row {
    /// hours
    pub w: f64,
    /// the same weight in ticks (µs): pure time sums stay exact (3 x 20 min is 1 h, not 0.9999…)
    pub w_us: i64,
    pub held: bool,
    /// the held column's value could not be read: neither held nor unallocated
    pub held_unknown: bool,
    pub idle: bool,
    pub activity: Activity,
    /// the MFU of the row's job, when declared
    pub mfu: Option<f64>,
    pub price: Option<f64>,
}

/// A compensated (Neumaier) sum. A month of a 1,000-GPU fleet adds ~10^8 products
/// such as weight x price; a plain f64 running sum drifts by ~1e-9 relative over
/// that many terms, enough to disagree with a careful SQL `fsum`. Two extra flops
/// per term keep the error at one rounding, whatever the row count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sum {
    sum: f64,
    compensation: f64,
}

impl Sum {
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        // The low-order bits lost by the addition, exactly (Knuth's TwoSum: the
        // same error term as Neumaier's branch on the larger operand, without
        // the branch, which mispredicted on every other row of a report).
        let z = t - self.sum;
        self.compensation += (self.sum - (t - z)) + (x - z);
        self.sum = t;
    }

    pub fn merge(&mut self, other: &Sum) {
        self.add(other.sum);
        self.add(other.compensation);
    }

    pub fn get(&self) -> f64 {
        self.sum + self.compensation
    }
}

impl From<f64> for Sum {
    fn from(x: f64) -> Self {
        Sum {
            sum: x,
            compensation: 0.0,
        }
    }
}

/// Sums of a set of samples. "known" sums hold the weight of the rows where a metric was measured.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub observed_us: i64,
    pub held_us: i64,
    pub idle_held_us: i64,
    pub held_unknown_activity_us: i64,
    /// rows whose held value could not be read (report: data_quality.held_unknown_gpu_hours)
    pub held_unknown_us: i64,
    pub unpriced_us: i64,
    /// per registry ratio metric (by slot): sum over held rows of w x value
    pub busy_h: [Sum; AUDITED],
    /// per registry ratio metric: the held time (µs) that measured it, an
    /// exact integer sum (a ratio's denominator: one rounding, at the division)
    pub known_us: [i64; AUDITED],
    pub useful_h: Sum,
    pub observed_usd: Sum,
    pub held_usd: Sum,
    pub idle_held_usd: Sum,
    pub unallocated_usd: Sum,
    /// sum over held rows of w x price x basis fraction
    pub basis_usd: Sum,
    /// per registry metric with idle dollars (device_util, sm_active,
    /// tensor_active): sum over held rows of w x price x value (a row without
    /// the metric adds 0), the busy share of held dollars at that layer
    pub busy_usd: [Sum; AUDITED],
    pub priced_rows: u64,
}

/// Which layers exist in the input (a column that is absent gives a null layer, not 0).
#[derive(Debug, Clone, Copy)]
pub struct Present {
    pub device_util: bool,
    pub sm_active: bool,
    pub tensor_active: bool,
    pub useful: bool,
}

impl Present {
    pub fn basis(&self) -> Basis {
        if self.useful {
            Basis::Useful
        } else if self.tensor_active {
            Basis::TensorActive
        } else if self.sm_active {
            Basis::SmActive
        } else {
            Basis::Active
        }
    }
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    if den > 0.0 { Some(num / den) } else { None }
}

impl Tally {
    // Hours are read from the exact tick sums when asked, not kept per row
    // (five divisions a row, four tallies a row, was 5% of a report).
    pub fn observed_h(&self) -> f64 {
        self.observed_us as f64 / US_PER_HOUR
    }
    pub fn held_h(&self) -> f64 {
        self.held_us as f64 / US_PER_HOUR
    }
    pub fn idle_held_h(&self) -> f64 {
        self.idle_held_us as f64 / US_PER_HOUR
    }
    pub fn held_unknown_activity_h(&self) -> f64 {
        self.held_unknown_activity_us as f64 / US_PER_HOUR
    }
    pub fn unpriced_h(&self) -> f64 {
        self.unpriced_us as f64 / US_PER_HOUR
    }

    pub fn add(&mut self, r: &Row, basis: Basis) {
        self.observed_us += r.w_us;
        let usd = r.price.map(|p| r.w * p);
        match usd {
            Some(u) => {
                self.observed_usd.add(u);
                self.priced_rows += 1;
            }
            None => {
                self.unpriced_us += r.w_us;
            }
        }
        if r.held_unknown {
            // held that cannot be read is not free: counted apart, not unallocated
            self.held_unknown_us += r.w_us;
            return;
        }
        if !r.held {
            self.unallocated_usd.add(usd.unwrap_or(0.0));
            return;
        }
        self.held_us += r.w_us;
        self.held_usd.add(usd.unwrap_or(0.0));
        // a fixed-size loop over constant flags: unrolled, no lookup per row
        let sums = self.busy_h.iter_mut().zip(self.known_us.iter_mut());
        for (((busy, known), is_ratio), value) in sums.zip(IS_RATIO).zip(r.activity.0) {
            if let (true, Some(v)) = (is_ratio, value) {
                busy.add(r.w * v);
                *known += r.w_us;
            }
        }
        if r.activity.device_util().is_none() {
            self.held_unknown_activity_us += r.w_us;
        }
        if let Some(m) = r.mfu {
            self.useful_h.add(r.w * m);
        }
        if r.idle {
            self.idle_held_us += r.w_us;
            self.idle_held_usd.add(usd.unwrap_or(0.0));
        }
        // A row without the basis metric counts as not useful (fraction 0): we
        // cannot show it did work, and the data-quality section says how much.
        let fraction = match basis.slot() {
            None => r.mfu,
            Some(s) => r.activity.get(s),
        }
        .unwrap_or(0.0);
        self.basis_usd.add(usd.unwrap_or(0.0) * fraction);
        let held_usd = usd.unwrap_or(0.0);
        let priced = self.busy_usd.iter_mut().zip(HAS_IDLE_USD);
        for ((busy, has_idle_usd), value) in priced.zip(r.activity.0) {
            if has_idle_usd {
                busy.add(held_usd * value.unwrap_or(0.0));
            }
        }
    }

    /// Held dollars not busy at each layer: held - busy share, null when the
    /// layer's metric is absent or nothing was priced.
    fn idle_at(&self, present: bool, busy: Sum) -> Option<f64> {
        (present && self.priced_rows > 0).then(|| self.held_usd.get() - busy.get())
    }

    /// Fill the cost section's per-layer idle dollars ("not busy (device)",
    /// "SM idle", "tensor idle") and their run-rates.
    pub fn fill_layer_idle_usd(&self, cost: &mut Cost, p: &Present, window_hours: f64) {
        let monthly = |v: Option<f64>| monthly_run_rate(v, window_hours);
        let busy = |s: Slot| self.busy_usd[s.0];
        cost.not_busy_usd = self.idle_at(p.device_util, busy(DEVICE_UTIL));
        cost.sm_idle_usd = self.idle_at(p.sm_active, busy(SM_ACTIVE));
        cost.tensor_idle_usd = self.idle_at(p.tensor_active, busy(TENSOR_ACTIVE));
        let m = &mut cost.monthly_run_rate;
        m.not_busy_usd = monthly(cost.not_busy_usd);
        m.sm_idle_usd = monthly(cost.sm_idle_usd);
        m.tensor_idle_usd = monthly(cost.tensor_idle_usd);
    }

    pub fn layers(&self, p: &Present) -> Layers {
        Layers {
            observed_gpu_hours: self.observed_h(),
            held_gpu_hours: self.held_h(),
            active_gpu_hours: self.layer_h(p.device_util, DEVICE_UTIL),
            sm_active_gpu_hours: self.layer_h(p.sm_active, SM_ACTIVE),
            tensor_active_gpu_hours: self.layer_h(p.tensor_active, TENSOR_ACTIVE),
            useful_gpu_hours: p.useful.then_some(self.useful_h.get()),
            idle_held_gpu_hours: p.device_util.then_some(self.idle_held_h()),
            unallocated_gpu_hours: (self.observed_us - self.held_us - self.held_unknown_us) as f64
                / US_PER_HOUR,
        }
    }

    /// A layer's GPU-hours: None where the input has no such column, and
    /// None where cards were held but none of their held hours measured it
    /// (a counter only idle cards reported is not "0 busy").
    fn layer_h(&self, present: bool, s: Slot) -> Option<f64> {
        let unmeasured = self.held_us > 0 && self.known_us[s.0] <= 0;
        (present && !unmeasured).then(|| self.busy_h(s))
    }

    pub fn ratios(&self, p: &Present) -> Ratios {
        let mut by_metric = [None; AUDITED];
        for (i, at) in by_metric.iter_mut().enumerate() {
            if IS_RATIO[i] {
                *at = ratio(self.busy_h[i].get(), self.known_us[i] as f64 / US_PER_HOUR);
            }
        }
        Ratios {
            held_of_observed: ratio(self.held_h(), self.observed_h()),
            by_metric,
            mfu: if p.useful {
                ratio(self.useful_h.get(), self.held_h())
            } else {
                None
            },
            idle_held: if p.device_util {
                ratio(self.idle_held_h(), self.held_h())
            } else {
                None
            },
        }
    }

    /// A ratio metric's sums from totals computed elsewhere (the pushdown
    /// plan, SQL partials): its held hours x value, the held hours that
    /// measured it, and (for a metric with idle dollars) its busy share of held
    /// dollars at `usd_per_hour`.
    pub fn set_metric(&mut self, s: Slot, busy_h: f64, known_h: f64, usd_per_hour: f64) {
        self.busy_h[s.0] = Sum::from(busy_h);
        // the plan's hours are whole µs summed: back to the exact count
        self.known_us[s.0] = (known_h * US_PER_HOUR).round() as i64;
        if HAS_IDLE_USD[s.0] {
            self.busy_usd[s.0] = Sum::from(busy_h * usd_per_hour);
        }
    }

    /// Held hours x a ratio metric's value (its layer's GPU-hours).
    pub fn busy_h(&self, s: Slot) -> f64 {
        self.busy_h[s.0].get()
    }

    /// Held hours that measured a ratio metric.
    pub fn known_h(&self, s: Slot) -> f64 {
        self.known_us[s.0] as f64 / US_PER_HOUR
    }

    /// Dollars are null when no row at all had a price (never a $0 that means "unknown").
    pub fn priced(&self, v: Sum) -> Option<f64> {
        (self.priced_rows > 0).then_some(v.get())
    }

    pub fn not_useful_usd(&self) -> Option<f64> {
        (self.priced_rows > 0).then_some(self.held_usd.get() - self.basis_usd.get())
    }

    pub fn group_cost(&self) -> GroupCost {
        GroupCost {
            observed_usd: self.priced(self.observed_usd),
            held_usd: self.priced(self.held_usd),
            idle_held_usd: self.priced(self.idle_held_usd),
            unallocated_usd: self.priced(self.unallocated_usd),
            not_useful_usd: self.not_useful_usd(),
            unpriced_gpu_hours: self.unpriced_h(),
        }
    }
}

impl Tally {
    /// Adds another tally's sums (the pushdown report sums per (group, model)).
    pub fn merge(&mut self, t: &Tally) {
        self.observed_us += t.observed_us;
        self.held_us += t.held_us;
        self.idle_held_us += t.idle_held_us;
        self.held_unknown_activity_us += t.held_unknown_activity_us;
        self.held_unknown_us += t.held_unknown_us;
        self.unpriced_us += t.unpriced_us;
        self.priced_rows += t.priced_rows;
        for (into, from) in self.known_us.iter_mut().zip(&t.known_us) {
            *into += from;
        }
        let per_metric = (self.busy_h.iter_mut().zip(&t.busy_h))
            .chain(self.busy_usd.iter_mut().zip(&t.busy_usd));
        for (into, from) in per_metric {
            into.merge(from);
        }
        for (into, from) in [
            (&mut self.useful_h, &t.useful_h),
            (&mut self.observed_usd, &t.observed_usd),
            (&mut self.held_usd, &t.held_usd),
            (&mut self.idle_held_usd, &t.idle_held_usd),
            (&mut self.unallocated_usd, &t.unallocated_usd),
            (&mut self.basis_usd, &t.basis_usd),
        ] {
            into.merge(from);
        }
    }

    /// The fleet's cost section; monthly run-rate = figure / window hours x 730.
    pub fn cost(
        &self,
        price_source: crate::catalog::prices::PriceSource,
        basis: Basis,
        unpriced_models: Vec<String>,
        window_hours: f64,
    ) -> Cost {
        let monthly = |v: Option<f64>| monthly_run_rate(v, window_hours);
        Cost {
            currency: "USD".to_string(),
            price_source,
            observed_usd: self.priced(self.observed_usd),
            held_usd: self.priced(self.held_usd),
            idle_held_usd: self.priced(self.idle_held_usd),
            unallocated_usd: self.priced(self.unallocated_usd),
            not_useful_usd: self.not_useful_usd(),
            not_useful_basis: self.not_useful_usd().map(|_| basis.name().to_string()),
            unpriced_gpu_hours: self.unpriced_h(),
            unpriced_models,
            ambiguous_models: Vec::new(),
            monthly_run_rate: MonthlyRunRate {
                observed_usd: monthly(self.priced(self.observed_usd)),
                held_usd: monthly(self.priced(self.held_usd)),
                idle_held_usd: monthly(self.priced(self.idle_held_usd)),
                unallocated_usd: monthly(self.priced(self.unallocated_usd)),
                not_useful_usd: monthly(self.not_useful_usd()),
                ..MonthlyRunRate::default()
            },
            ..Cost::default()
        }
    }
}

/// The layers in waterfall order with their shares of held and observed.
pub fn waterfall(layers: &Layers) -> Vec<WaterfallStep> {
    let pct = |v: Option<f64>, of: f64| v.and_then(|x| if of > 0.0 { Some(x / of) } else { None });
    let (held, observed) = (layers.held_gpu_hours, layers.observed_gpu_hours);
    let step = |layer: Layer, v: Option<f64>| WaterfallStep {
        layer,
        gpu_hours: v,
        pct_of_held: pct(v, held),
        pct_of_observed: pct(v, observed),
    };
    vec![
        // observed is the whole; a share of held means nothing there
        WaterfallStep {
            pct_of_held: None,
            ..step(Layer::Observed, Some(observed))
        },
        step(Layer::Held, Some(held)),
        step(Layer::Active, layers.active_gpu_hours),
        step(Layer::SmActive, layers.sm_active_gpu_hours),
        step(Layer::TensorActive, layers.tensor_active_gpu_hours),
        step(Layer::Useful, layers.useful_gpu_hours),
        step(Layer::IdleHeld, layers.idle_held_gpu_hours),
    ]
}

/// A figure over the window as a monthly run-rate (730 hours a month); none
/// for an empty window.
pub fn monthly_run_rate(v: Option<f64>, window_hours: f64) -> Option<f64> {
    v.filter(|_| window_hours > 0.0)
        .map(|x| x / window_hours * 730.0)
}

#[cfg(test)]
mod sum_tests {
    use super::Sum;

    #[test]
    fn compensated_sum_keeps_what_a_plain_sum_loses() {
        let mut s = Sum::default();
        for x in [1.0, 1e100, 1.0, -1e100] {
            s.add(x);
        }
        assert_eq!(s.get(), 2.0); // a plain f64 sum gives 0
    }

    #[test]
    fn ten_million_small_terms_sum_to_one_rounding() {
        // 30 s at $3/h, 10^7 times: the exact total is 250,000 dollars
        let term = 30.0 / 3600.0 * 3.0;
        let (mut s, mut plain) = (Sum::default(), 0.0_f64);
        for _ in 0..10_000_000 {
            s.add(term);
            plain += term;
        }
        let exact = 250_000.0;
        assert!(
            (s.get() - exact).abs() / exact < 1e-15,
            "compensated {}",
            s.get()
        );
        assert!(
            (plain - exact).abs() / exact > 1e-12,
            "the plain sum was expected to drift: {plain}"
        );
        let mut halves = (Sum::default(), Sum::default());
        for i in 0..1_000 {
            if i % 2 == 0 {
                halves.0.add(term)
            } else {
                halves.1.add(term)
            }
        }
        halves.0.merge(&halves.1);
        assert!((halves.0.get() - 25.0).abs() < 1e-12);
    }
}
