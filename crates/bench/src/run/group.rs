//! One group of the run: behind its proxies if its Postgres and Redis are
//! a round trip away ([`super::proxies`]), announced, then measured by its
//! kind: a sweep ([`super::sweep`]), the idle group ([`super::idle`]) or a
//! load group ([`super::load_group`]), which gives the results of the group
//! it measures first in its rounds too, if it has one.

use super::{idle, load_group, proxies, sweep, Ctx};
use crate::plan::{GroupPlan, Load};
use bench_model::GroupResult;

/// `group`, measured (and the group measured first in its rounds, after
/// it); its proxies stop when it is done.
pub(super) fn measure_group(group: &GroupPlan, cx: &Ctx<'_>) -> anyhow::Result<Vec<GroupResult>> {
    let network = proxies::for_group(cx.launch, group.group.network)?;
    let cx = &Ctx {
        launch: network.as_ref().map_or(cx.launch, |n| &n.launch),
        ..*cx
    };
    let first = group.first_window.as_deref().map_or(String::new(), |f| {
        format!(
            "; on each fresh server first: {} — {}",
            f.group.title,
            f.load.describe()
        )
    });
    cx.progress.say(&format!(
        "\n{} — {}; {} rounds{first}",
        group.group.title,
        group.load.describe(),
        group.rounds
    ));
    match &group.load {
        Load::Sweep(sweep) => Ok(vec![sweep::measure_sweep_group(group, sweep, cx)?]),
        Load::Idle(idle) => Ok(vec![idle::measure_idle_group(group, idle, cx)?]),
        load => load_group::measure_load_group(group, load, cx),
    }
}
