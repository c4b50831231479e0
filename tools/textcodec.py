"""A file's bytes as text and back, losslessly: what edit and write need to keep every byte they
were not asked to change.

UTF-8 is the default. A byte-order mark picks UTF-8-with-BOM, UTF-16 or UTF-32 (kept on write).
Bytes that are not valid UTF-8 (a Latin-1 config, a stray byte) decode as surrogate escapes, which
encode back to exactly the same bytes; such text is never shown to the model as is (``shown``).
"""

from __future__ import annotations

import codecs
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from tools.nofollow import open_dir
from tools.tool import ToolError

# UTF-32-LE's mark begins with UTF-16-LE's, so the longer marks are tried first.
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class FileCodec:
    encoding: str = "utf-8"
    mark: bytes = b""  # the byte-order mark the file starts with, written back
    legacy: bool = False  # not valid UTF-8: undecodable bytes are held as surrogate escapes

    def decode(self, data: bytes) -> str:
        errors = "surrogateescape" if self.legacy else "strict"
        return data[len(self.mark) :].decode(self.encoding, errors)

    def encode(self, text: str, shown: str) -> bytes:
        errors = "surrogateescape" if self.legacy else "strict"
        try:
            return self.mark + text.encode(self.encoding, errors)
        except UnicodeEncodeError as error:
            bad = text[error.start : error.end]
            raise ToolError(
                f"cannot write {shown}: {bad!r} at character {error.start} is not valid "
                f"{self.encoding} text (a lone surrogate?); nothing was written"
            ) from None

    @property
    def reader(self) -> str:
        """The codec name that reads the file as a stream and drops its mark."""
        if not self.mark:
            return self.encoding
        return "utf-8-sig" if self.encoding == "utf-8" else self.encoding[:6]

    @property
    def note(self) -> str:
        """How the file is stored, when that is not plain UTF-8."""
        if self.legacy:
            return "not valid UTF-8; its other bytes were kept as they were"
        return f"{self.encoding.upper()} with a byte-order mark" if self.mark else ""


UTF8 = FileCodec()


def marked_codec(head: bytes) -> FileCodec | None:
    """The codec a byte-order mark at the start of ``head`` names, else None."""
    for mark, encoding in _MARKS:
        if head.startswith(mark):
            return FileCodec(encoding, mark)
    return None


def decode_file(data: bytes) -> tuple[str, FileCodec]:
    """The text and the codec that gives back exactly ``data``."""
    codec = marked_codec(data[:4])
    if codec is not None:
        try:
            return codec.decode(data), codec
        except UnicodeDecodeError:
            pass  # a mark by chance: fall through to UTF-8 with escapes
    try:
        return data.decode("utf-8"), UTF8
    except UnicodeDecodeError:
        legacy = FileCodec(legacy=True)
        return legacy.decode(data), legacy


def shown(text: str) -> str:
    """Text safe to show or log: surrogate escapes become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def atomic_write_bytes(full: Path, data: bytes) -> None:
    """Write through a temporary file in the same directory, fsync it, then rename over the
    target: a kill at any point leaves the old file or the new one, never a half. The directory
    is opened without following symlinks (``tools.nofollow``), so a swapped-in link cannot move
    the write, and it is synced so the rename itself is durable."""
    full.parent.mkdir(parents=True, exist_ok=True)
    directory = open_dir(full.parent)
    temp = f".{full.name}.{secrets.token_hex(4)}.tmp"
    try:
        try:
            found = os.stat(full.name, dir_fd=directory, follow_symlinks=False).st_mode
            mode: int | None = found & 0o7777 if stat.S_ISREG(found) else None
        except FileNotFoundError:
            mode = None
        # 0o666 lets the umask decide a new file's mode, as any editor would.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(temp, flags, 0o666, dir_fd=directory)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                if mode is not None:
                    os.fchmod(file.fileno(), mode)
                os.fsync(file.fileno())
            os.replace(temp, full.name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=directory)
            except FileNotFoundError:
                pass
            raise
        try:
            os.fsync(directory)
        except OSError:
            pass  # some file systems cannot sync a directory; the rename still happened
    finally:
        os.close(directory)
