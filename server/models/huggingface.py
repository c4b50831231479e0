"""Models fetched from Hugging Face through huggingface_hub's cache, honouring HF_HUB_OFFLINE.

huggingface_hub is imported inside the functions: it is slow to import and only needed for
profiles with a Hugging Face model.
"""

from __future__ import annotations

import io
import os
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server.errors import ModelError
from server.models.spec import ModelSpec, Progress


def hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def hub_unreachable(timeout_s: float = 3.0) -> str | None:
    """Why the Hub cannot be reached (offline, no route, no name), or None: a TCP connect to
    HF_ENDPOINT's host, since huggingface_hub itself retries for ~25 s before it gives up."""
    if hf_offline():
        return "HF_HUB_OFFLINE is set"
    url = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname or "", port), timeout=timeout_s).close()
    except OSError as exc:
        return f"Hugging Face unreachable: {exc.strerror or exc}"
    return None


def hf_download(spec: ModelSpec, progress: Progress | None, force: bool = False) -> Path:
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
    )

    offline = hf_offline()
    # A cold start with the file cached asks the Hub nothing: not whether it changed, nor (as
    # huggingface_hub's own user-agent code does even with local_files_only) anything else.
    cached = None if force else cached_hf_file(spec)
    if cached is not None:
        return cached
    what = spec.describe()
    bar = _tqdm_forwarding(progress, f"download {spec.filename}") if progress else None
    try:
        got = hf_hub_download(
            spec.repo,
            spec.filename,
            local_files_only=offline,
            force_download=force,
            tqdm_class=bar,
        )
    except LocalEntryNotFoundError:
        if offline:
            raise ModelError(
                f"{what} is not in the Hugging Face cache and HF_HUB_OFFLINE is set; fetch it "
                "on a connected machine (`beecode server fetch`) or use a local path"
            ) from None
        raise ModelError(f"cannot reach Hugging Face to fetch {what} (not cached)") from None
    except GatedRepoError:
        raise ModelError(f"{spec.repo} is gated: accept its terms on huggingface.co") from None
    except RepositoryNotFoundError:
        raise ModelError(f"Hugging Face repository {spec.repo} does not exist") from None
    except EntryNotFoundError:
        raise ModelError(f"{spec.repo} has no file {spec.filename}") from None
    except (HfHubHTTPError, OSError) as exc:
        raise ModelError(f"downloading {what} failed: {str(exc).splitlines()[0]}") from None
    return Path(str(got))


def cached_hf_file(spec: ModelSpec) -> Path | None:
    """The file in the Hugging Face cache, or None; asks the Hub nothing."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(spec.repo, spec.filename)
    return Path(found) if isinstance(found, str) and Path(found).is_file() else None


def _tqdm_forwarding(progress: Progress, label: str) -> type[Any]:
    """A tqdm class for huggingface_hub that reports to `progress` instead of drawing."""
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    class Forward(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["file"] = io.StringIO()
            kwargs.pop("disable", None)
            super().__init__(*args, **kwargs)

        def display(self, msg: str | None = None, pos: int | None = None) -> bool:
            progress(label, int(self.n), int(self.total or 0))
            return True

    return Forward
