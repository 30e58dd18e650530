//! Acting, then waiting for the screen to settle while observing it, and looking again while an
//! expectation is unmet.

use std::time::Duration;

use handrail_platform::{Desktop, PlatformError, SettleReport, SettleRequest, SettleWatch};

use super::act::perform;
use super::config::Config;
use super::expect::{check_expect, settled_on};
use super::hooks::Waiting;
use super::observe::{observe, Fresh};
use super::Aim;
use crate::identity::IdTracker;
use crate::observation::Element;
use crate::outcome::{ExpectOutcome, TypingCheck};
use crate::request::{Command, Request};

/// What acting produced: how the wait went, the observation after, and the expectation's outcome.
pub(super) struct Acted {
    pub(super) settle: SettleReport,
    /// Settle time including any waits while checking `expect`.
    pub(super) settle_time: Duration,
    pub(super) fresh: Fresh,
    pub(super) expect: Option<ExpectOutcome>,
    /// For `type`: whether the text reached its receiver.
    pub(super) typing: Option<TypingCheck>,
}

/// Acts, waits for the screen to settle, observes, and keeps looking while an expectation is unmet
/// and the screen keeps changing (bounded by `expect_timeout`).
#[allow(clippy::too_many_arguments)]
pub(super) fn act_settle_observe(
    desktop: &Desktop,
    config: &Config,
    tracker: &mut IdTracker,
    request: &Request,
    aims: &[Aim],
    marks: bool,
    typed_into: Option<&Result<Element, String>>,
    waiting: &mut Waiting<'_>,
) -> Result<Acted, PlatformError> {
    let mut watch = desktop.settle.watch()?;
    if let Some(cancel) = waiting.cancel {
        watch.set_cancel(cancel.clone());
    }
    // The last moment a cancel keeps the input from being sent at all.
    if waiting.cancelled() {
        return Err(PlatformError::Cancelled { sent: false });
    }
    waiting.report(&format!("{}: sending the input", request.action));
    perform(desktop, request, aims, &config.url_policy)?;
    waiting.report("waiting for the screen to settle");
    let (settle, mut settle_time, mut fresh) =
        settle_and_observe(desktop, config, tracker, marks, &mut *watch, waiting)?;
    let typing = match (typed_into, &request.command) {
        (Some(Ok(before)), Command::Type { text, .. }) => {
            let mut typed = super::typing::Typed { desktop, config, tracker: &mut *tracker, marks, watch: &mut *watch };
            Some(typed.verify(text, before, &mut fresh, &mut settle_time)?)
        }
        (Some(Err(why)), _) => Some(TypingCheck::Unchecked { why: why.clone() }),
        _ => None,
    };
    let mut expect_outcome = request.expect.as_ref().map(|e| check_expect(e, &fresh.obs));
    if let Some(expect) = request.expect.as_ref().filter(|e| expect_outcome.as_ref().is_some_and(|o| !settled_on(e, o)))
    {
        let deadline = desktop.clock.now() + config.expect_timeout;
        let mut looks = 0u32;
        loop {
            let remaining = deadline.saturating_sub(desktop.clock.now());
            waiting.report(&format!("waiting for {} {:?} to come true", expect.kind.as_str(), expect.value));
            if remaining.is_zero() || !watch.wait_for_change(remaining)? {
                break;
            }
            if waiting.cancelled() {
                return Err(PlatformError::Cancelled { sent: true });
            }
            looks += 1;
            waiting.report(&format!("the screen changed; looking again ({looks})"));
            settle_time += watch.wait(&config.settle)?.waited;
            fresh = observe(desktop, config, tracker, None, marks)?;
            let outcome = check_expect(expect, &fresh.obs);
            let done = settled_on(expect, &outcome);
            expect_outcome = Some(outcome);
            if done {
                break;
            }
        }
    }
    Ok(Acted { settle, settle_time, fresh, expect: expect_outcome, typing })
}

/// How long the screen must have been still before the observation is taken while the rest of the
/// quiet period runs (see [`settle_and_observe`]).
pub(super) const OBSERVE_AFTER_STILL: Duration = Duration::from_millis(40);

/// Waits for the screen to settle and observes it, overlapping the two: the observation is taken
/// once the screen has been still for [`OBSERVE_AFTER_STILL`], and kept if nothing changes until the
/// quiet period is over; otherwise the wait goes on as usual and the screen is observed again. The
/// observation either way shows a screen that stayed unchanged from its capture to the end of a
/// full quiet period.
pub(super) fn settle_and_observe(
    desktop: &Desktop,
    config: &Config,
    tracker: &mut IdTracker,
    marks: bool,
    watch: &mut dyn SettleWatch,
    waiting: &mut Waiting<'_>,
) -> Result<(SettleReport, Duration, Fresh), PlatformError> {
    let quiet = config.settle.quiet;
    let early = SettleRequest { quiet: quiet.min(OBSERVE_AFTER_STILL), ..config.settle };
    let first = watch.wait(&early)?;
    // The input was sent; nothing more is done for a caller that has gone.
    if waiting.cancelled() {
        return Err(PlatformError::Cancelled { sent: true });
    }
    waiting.report("observing the screen");
    if !first.saw_change || !first.settled || early.quiet >= quiet {
        let fresh = observe(desktop, config, tracker, None, marks)?;
        return Ok((first.clone(), first.waited, fresh));
    }
    let captured = desktop.clock.now();
    let fresh = observe(desktop, config, tracker, None, marks)?;
    let rest = (quiet - early.quiet).saturating_sub(desktop.clock.now().saturating_sub(captured));
    let ceiling = config.settle.ceiling.saturating_sub(first.waited);
    let check = watch.wait(&SettleRequest { response_window: rest, quiet, ceiling })?;
    let waited = first.waited + check.waited;
    let mut report = SettleReport { waited, saw_change: true, ..check.clone() };
    if !check.saw_change {
        // Still since the capture: what the observation shows is what the screen settled on.
        report.ignored = first.ignored;
        report.began = if check.began.is_empty() { first.began } else { check.began };
        return Ok((report, waited, fresh));
    }
    // It changed again after the capture; the check waited that out: look again.
    Ok((report, waited, observe(desktop, config, tracker, None, marks)?))
}
