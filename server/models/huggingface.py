"""Models fetched from Hugging Face through huggingface_hub's cache, honouring HF_HUB_OFFLINE and
HF_ENDPOINT (read at each call, so a mirror or a test's local Hub applies without a re-import).

huggingface_hub is imported inside the functions: it is slow to import and only needed for
profiles with a Hugging Face model.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server.errors import ModelError
from server.models.spec import ModelSpec, Progress


def hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def hub_endpoint() -> str:
    """HF_ENDPOINT as it is now (huggingface_hub reads it once, at import), else the Hub."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def hub_host() -> str:
    """The endpoint as a download line names it: `huggingface.co`, or a mirror's host:port."""
    return urlsplit(hub_endpoint()).netloc


def hub_file_problem(spec: ModelSpec, timeout_s: float = 5.0) -> str | None:
    """Why the Hub's file cannot be the pinned one, or None: offline, unreachable, missing, or
    of another size. One HEAD request without retries, so a Hub that cannot be reached is found
    out in seconds, not in huggingface_hub's ~25 s of retries; proxies are honoured as for the
    download. The sha256 is checked on the downloaded bytes (an ETag is not always a sha256)."""
    import httpx2
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        RepositoryNotFoundError,
    )

    if hf_offline():
        return "HF_HUB_OFFLINE is set"
    endpoint = hub_endpoint()
    url = hf_hub_url(spec.repo, spec.filename, endpoint=endpoint)
    try:
        meta = get_hf_file_metadata(url, timeout=timeout_s, endpoint=endpoint)
    except GatedRepoError:
        return f"{spec.repo} is gated: accept its terms on huggingface.co"
    except (RepositoryNotFoundError, EntryNotFoundError):
        return f"{hub_host()}/{spec.repo} has no file {spec.filename}"
    except HfHubHTTPError as exc:
        return f"{hub_host()} answered {_first_line(exc)}"
    except (httpx2.HTTPError, OSError) as exc:  # OSError: requests' errors (huggingface_hub < 1)
        return f"Hugging Face unreachable: {_first_line(exc)}"
    if spec.size_bytes is not None and meta.size != spec.size_bytes:
        return f"the file on {hub_host()}/{spec.repo} is {meta.size} bytes, not the pinned one"
    return None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def hub_origin(path: Path, spec: ModelSpec) -> str:
    """Where a file in the Hugging Face cache came from: host, repository and the revision its
    snapshot folder names."""
    snapshot = next((p for p in path.parents if p.parent.name == "snapshots"), None)
    revision = f" at revision {snapshot.name[:12]}" if snapshot is not None else ""
    return f"{hub_host()}/{spec.repo}{revision}"


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
            endpoint=hub_endpoint(),
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
