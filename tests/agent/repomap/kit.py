"""A small real git repository with a file in each language the map reads."""

from __future__ import annotations

import subprocess
from pathlib import Path

SOURCES = {
    "app/core.py": "class Engine:\n    def start_engine(self):\n        return 1\n\n"
    "def make_engine():\n    return Engine()\n",
    "app/use.py": "from app.core import make_engine\n\ndef run_all():\n    make_engine()\n",
    "web/widget.js": "export class Widget {\n  renderWidget() { return 1; }\n}\n"
    "function mountWidget() { return new Widget(); }\n",
    "web/types.ts": "export interface Shape { area(): number }\n"
    "export function shapeArea(s: Shape): number { return s.area(); }\n",
    "web/view.tsx": "export function PanelView(): JSX.Element {\n"
    "  return <div>{shapeArea(x)}</div>;\n}\n",
    "svc/server.go": "package svc\n\ntype Server struct{}\n\n"
    "func (s *Server) ServeAll() {}\n\nfunc NewServer() *Server { return &Server{} }\n",
    "lib/src/lib.rs": "pub struct Parser;\n\nimpl Parser {\n    pub fn parse_all(&self) {}\n}\n\n"
    "pub fn new_parser() -> Parser { Parser }\n",
    "java/Store.java": "public class Store {\n  public int countItems() { return 0; }\n}\n",
    "native/buffer.c": "struct ring_buffer { int size; };\n\n"
    "int ring_push(struct ring_buffer *b) { return b->size; }\n",
    "native/vec.cpp": "class Vector3 {\n public:\n  double dotProduct();\n};\n\n"
    "double Vector3::dotProduct() { return 0; }\n",
}
DEFINED = {
    "app/core.py": {"Engine", "start_engine", "make_engine"},
    "app/use.py": {"run_all"},
    "web/widget.js": {"Widget", "renderWidget", "mountWidget"},
    "web/types.ts": {"Shape", "shapeArea"},
    "web/view.tsx": {"PanelView"},
    "svc/server.go": {"Server", "ServeAll", "NewServer"},
    "lib/src/lib.rs": {"Parser", "parse_all", "new_parser"},
    "java/Store.java": {"Store", "countItems"},
    "native/buffer.c": {"ring_buffer", "ring_push"},
    "native/vec.cpp": {"Vector3", "dotProduct"},
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def make_repo(root: Path, files: dict[str, str] = SOURCES) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    return root
