"""beecode's permission prompt answered by the editor (``session/request_permission``): its
four options map onto beecode's answers, and allow always / reject always onto its rules."""

from __future__ import annotations

from acp.schema import AllowedOutcome, PermissionOption, RequestPermissionResponse

from agent.events import PermissionChoice, PermissionDecision

OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Allow always", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject once", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Reject always", kind="reject_always"),
]
CHOICES: dict[str, PermissionChoice] = {
    "allow_once": "allow_once",
    "allow_always": "allow_always",  # an allow rule, kept for the workspace
    "reject_once": "deny",
    "reject_always": "deny_always",  # a deny rule for the rest of the session
}
CANCELLED = "The prompt was cancelled before the user answered; the call was not run."


def decision(response: RequestPermissionResponse) -> PermissionDecision:
    """The editor's answer as beecode's; a cancelled request (or an option beecode did not
    offer) runs nothing."""
    outcome = response.outcome
    if not isinstance(outcome, AllowedOutcome):
        return PermissionDecision("deny", CANCELLED)
    choice = CHOICES.get(outcome.option_id)
    if choice is None:
        return PermissionDecision("deny", f"unknown answer {outcome.option_id!r}; not run")
    return PermissionDecision(choice)  # a denial without words: the model hears the user's
