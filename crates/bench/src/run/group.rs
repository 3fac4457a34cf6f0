//! One group of the run: behind its proxies if its Postgres and Redis are
//! a round trip away ([`super::proxies`]), announced, then measured by its
//! kind: a sweep ([`super::sweep`]), the idle group ([`super::idle`]) or a
//! load group ([`super::load_group`]).

use super::{idle, load_group, proxies, sweep, Ctx};
use crate::plan::{GroupPlan, Load};
use bench_model::GroupResult;

/// `group`, measured; its proxies stop when it is done.
pub(super) fn measure_group(group: &GroupPlan, cx: &Ctx<'_>) -> anyhow::Result<GroupResult> {
    let network = proxies::for_group(cx.launch, group.group.network)?;
    let cx = &Ctx {
        launch: network.as_ref().map_or(cx.launch, |n| &n.launch),
        ..*cx
    };
    cx.progress.say(&format!(
        "\n{} — {}; {} rounds",
        group.group.title,
        group.load.describe(),
        group.rounds
    ));
    match &group.load {
        Load::Sweep(sweep) => sweep::measure_sweep_group(group, sweep, cx),
        Load::Idle(idle) => idle::measure_idle_group(group, idle, cx),
        load => load_group::measure_load_group(group, load, cx),
    }
}
