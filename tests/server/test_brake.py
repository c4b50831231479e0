"""The speculation brake's decisions (server.brake), from measures as a server would report them."""

from __future__ import annotations

from server.brake import BANDS, OFF_FIELDS, PROBE_EVERY, Brake, Measure


def on(tok_s: float, tokens: int = 64, drafted: int = 64, accepted: int = 40) -> Measure:
    return Measure("on", tokens, tokens / tok_s, drafted, accepted)


def off(tok_s: float, tokens: int = 64, drafted: int | None = None) -> Measure:
    return Measure("off", tokens, tokens / tok_s, drafted, None)


class TestProbePair:
    def test_a_losing_drafter_is_paused_and_says_by_how_much(self) -> None:
        brake = Brake()
        assert brake.needs_probe() and brake.fields() == {}
        brake.record_probe(off(100.0), on(55.0))
        assert brake.fields() == OFF_FIELDS
        assert not brake.needs_probe()
        state = brake.state()
        assert state.paused and state.ratio == 0.55

    def test_a_paying_drafter_keeps_drafting(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(310.0))
        assert brake.fields() == {}
        assert not brake.state().paused and brake.state().ratio == 3.1

    def test_drafts_never_accepted_pause_whatever_the_rates_say(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(101.0, accepted=0))
        assert brake.fields() == OFF_FIELDS
        assert brake.state().never_accepted  # said so, not by a ratio over 1

    def test_a_fresh_pair_is_asked_for_after_probe_every_requests(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(50.0))
        for _ in range(PROBE_EVERY - 1):
            brake.record(off(100.0), context_after=500)
            assert not brake.needs_probe()
        brake.record(off(100.0), context_after=500)
        assert brake.needs_probe()
        brake.record_probe(off(100.0), on(250.0))  # the drafter pays again: drafting resumes
        assert brake.fields() == {}


class TestRealRequests:
    def test_drafting_that_stops_paying_asks_for_a_fresh_pair_which_pauses_it(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(200.0))
        for _ in range(3):  # the acceptance falls as the session goes on
            brake.record(on(60.0), context_after=1000)
        assert brake.needs_probe()  # before the next request, not after PROBE_EVERY
        assert brake.fields() == {}
        brake.record_probe(off(100.0), on(60.0))
        assert brake.fields() == OFF_FIELDS and not brake.needs_probe()
        ratio = brake.state().ratio
        assert ratio is not None and ratio < 1

    def test_a_request_slowed_by_load_does_not_pause_a_drafter_the_pair_finds_paying(
        self,
    ) -> None:
        brake = Brake()
        brake.record_probe(off(30.0), on(48.0))
        brake.record(on(48.0, drafted=380, accepted=350), context_after=1000)
        brake.record(on(16.0, drafted=437, accepted=423), context_after=1500)  # a build started
        assert brake.fields() == {} and brake.needs_probe()
        brake.record_probe(off(12.0), on(20.0))  # like for like, under the same load
        assert brake.fields() == {} and not brake.needs_probe()
        brake.record(on(21.0, drafted=400, accepted=380), context_after=2000)
        assert brake.fields() == {}

    def test_a_loss_right_after_a_pair_that_upheld_drafting_pauses_at_once(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(200.0))
        brake.record(on(40.0), context_after=1000)
        brake.record_probe(off(100.0), on(150.0))  # short probes pay, long requests do not
        brake.record(on(40.0), context_after=1500)
        assert brake.fields() == OFF_FIELDS and not brake.needs_probe()

    def test_a_pair_asked_for_that_gets_no_answer_leaves_the_loss_standing(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(200.0))
        brake.record(on(40.0), context_after=1000)
        brake.record_probe_failed()
        assert brake.fields() == OFF_FIELDS and not brake.needs_probe()

    def test_requests_without_drafting_never_resume_it_only_a_probe_pair_does(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(50.0))
        for rate in (40.0, 30.0):  # load from elsewhere: the rate without drafting falls
            brake.record(off(rate), context_after=500)
            assert brake.fields() == OFF_FIELDS

    def test_a_probe_that_drafted_nothing_lets_the_requests_judge(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(50.0))
        assert brake.fields() == OFF_FIELDS
        for _ in range(PROBE_EVERY):
            brake.record(off(100.0), context_after=500)
        brake.record_probe(off(100.0), on(99.0, drafted=0, accepted=0))  # nothing to continue
        assert brake.fields() == {}  # drafting again, on trial
        brake.record(on(80.0, drafted=120, accepted=20), context_after=600)
        assert brake.needs_probe()  # the request drafted and lost: a fresh pair decides
        brake.record_probe(off(100.0), on(99.0, drafted=0, accepted=0))  # nothing again
        assert brake.fields() == OFF_FIELDS  # the request's loss stands: paused
        assert brake.state().ratio == 0.8  # the request's rate against the fresh pair's

    def test_a_loss_the_fresh_pair_does_not_bear_out_keeps_drafting_on(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(200.0))
        brake.record(on(30.0, drafted=120, accepted=60), context_after=600)  # the machine slowed
        assert brake.needs_probe()
        brake.record_probe(off(40.0), on(39.0, drafted=0, accepted=0))  # slower without, too
        state = brake.state()
        assert not state.paused and state.ratio is not None and state.ratio > 1
        brake.record(on(20.0, drafted=120, accepted=10), context_after=700)  # a second loss
        assert brake.fields() == OFF_FIELDS and not brake.needs_probe()

    def test_a_request_that_drafted_nothing_says_nothing_about_drafting(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(200.0))
        for _ in range(3):  # schema-held replies: the server drafts none, at a rate of its own
            brake.record(on(60.0, drafted=0, accepted=0), context_after=1000)
        assert brake.fields() == {} and not brake.needs_probe()
        assert brake.state().ratio == 2.0

    def test_a_request_too_short_to_time_changes_nothing(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(200.0))
        brake.record(on(1.0, tokens=3, drafted=3, accepted=0), context_after=1000)
        assert brake.fields() == {}


class TestBands:
    def test_each_context_band_is_measured_on_its_own(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0), on(50.0))
        assert brake.fields() == OFF_FIELDS
        brake.record(off(100.0), context_after=BANDS[0] + 10)  # the session grew past a band
        assert brake.needs_probe()  # the next request starts in a band not measured yet
        assert brake.fields() == {}
        assert brake.state().band == BANDS[1]
        assert brake.fields(context=100) == OFF_FIELDS  # the first band keeps its verdict


class TestServerThatCannotBeHeld:
    def test_an_off_request_that_drafted_marks_the_server_and_the_brake_lets_go(self) -> None:
        brake = Brake()
        brake.record_probe(off(100.0, drafted=64), on(50.0))
        assert not brake.held
        assert brake.fields() == {} and not brake.needs_probe()
        assert not brake.state().held and not brake.state().paused
