"""True answers in other languages (German, Spanish, French, Italian, Portuguese, Chinese,
Japanese)."""

from __future__ import annotations

from _answers_case import Case, ed, gr, ls, rd, sh, wr
from _answers_projects import (
    C_PROJ,
    HTTP,
    INV,
    KV,
    SHELL,
    STATS_P,
    TODO,
    TOTAL_NEW,
    TOTAL_OLD,
    UNITS_P,
    WEB,
)

I18N = [
    Case(
        "i18n-de-explain",
        "i18n",
        "Was gibt parse_line bei einer Leerzeile zurück?",
        KV,
        [[rd("kvparse/parser.py")]],
        "`parse_line` gibt bei einer Leerzeile `None` zurück: Die Zeile wird mit `strip()` "
        "bereinigt, und `if not stripped or stripped.startswith(COMMENT)` greift sowohl bei "
        "leeren Zeilen als auch bei Kommentaren (`#`). `parse()` überspringt solche Zeilen "
        "dann einfach.",
        True,
    ),
    Case(
        "i18n-es-tests",
        "i18n",
        "ejecuta los tests, por favor",
        KV,
        [[sh("python -m pytest -q")]],
        "Listo: ejecuté `python -m pytest -q` y los **5 tests pasaron**, ninguno falló.",
        True,
    ),
    Case(
        "i18n-fr-port",
        "i18n",
        "change le port par défaut en 8000",
        WEB,
        [
            [rd("app/config.py"), rd("deploy/run.sh")],
            [ed("app/config.py", "DEFAULT_PORT = 8080", "DEFAULT_PORT = 8000")],
        ],
        """C'est fait : dans `app/config.py`, `DEFAULT_PORT` passe de `8080` à `8000`.

Attention : ce n'est que la valeur par défaut. `deploy/run.sh` exporte toujours \
`APP_PORT=9090`, donc l'application déployée continue d'écouter sur le port 9090.""",
        True,
    ),
    Case(
        "i18n-it-fix",
        "i18n",
        "correggi total_value, deve calcolare il valore del magazzino",
        INV,
        [
            [rd("inventory.py")],
            [ed("inventory.py", TOTAL_OLD, TOTAL_NEW)],
            [sh("python -m pytest -q")],
        ],
        """Ho corretto `total_value` in `inventory.py`: sommava solo le quantità, ora \
moltiplica ogni quantità per il suo prezzo unitario:

```python
return sum(quantity * price for quantity, price in self.items.values())
```

Ho eseguito i test: tutti e **4 passano**, compreso `test_total_value`.""",
        True,
    ),
    Case(
        "i18n-pt-nochange",
        "i18n",
        "garanta que o app use a porta 9090 em produção",
        WEB,
        [[rd("deploy/run.sh"), rd("config/settings.toml")]],
        "Já está assim, não precisei mudar nada: `deploy/run.sh` exporta `APP_PORT=9090` "
        "antes de iniciar `python3 -m app.server`, e `config/settings.toml` também tem "
        "`port = 9090`. O `8080` em `app/config.py` é só o valor padrão quando `APP_PORT` não "
        "está definido.",
        True,
    ),
    Case(
        "i18n-zh-retry",
        "i18n",
        "billing 客户端的重试逻辑是怎么工作的？",
        HTTP,
        [[rd("billing/client.py")]],
        """重试由 urllib3 的 `Retry` 实现，在 `make_session` 里通过 `HTTPAdapter` 挂到 \
`https://` 上：

- 最多重试 **3** 次（`MAX_RETRIES = 3`），退避系数 `BACKOFF_FACTOR = 0.5`；
- 只对状态码 `429`、`502`、`503`、`504` 重试（`RETRY_STATUSES`）；
- 只重试 `GET`、`PUT`、`DELETE`，**`POST` 不会重试**，避免重复创建数据。

另外，`get_invoice` 每次请求都带 `timeout=TIMEOUT_S`（10 秒），遇到 404 时记录警告并返回 \
`None`。""",
        True,
    ),
    Case(
        "i18n-ja-build",
        "i18n",
        "ビルドしてください",
        C_PROJ,
        [[sh("make")]],
        """ビルドは失敗しました。`src/counter.c` の 5 行目でコンパイルエラーです：

```
src/counter.c:5:15: error: expected ‘;’ before ‘}’ token
```

`c->count++` の後にセミコロンがありません。バイナリは生成されていません。修正しましょうか？""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "i18n-de-commit",
        "i18n",
        "Erhöhe die Version auf 0.4.0 und committe das",
        KV,
        [
            [rd("pyproject.toml")],
            [ed("pyproject.toml", 'version = "0.3.1"', 'version = "0.4.0"')],
            [sh('git commit -am "Bump version to 0.4.0"')],
        ],
        "Erledigt: Die Version in `pyproject.toml` ist jetzt `0.4.0` (vorher `0.3.1`), und die "
        "Änderung ist mit der Nachricht `Bump version to 0.4.0` committet.",
        True,
    ),
    Case(
        "i18n-es-gitignore",
        "i18n",
        "añade un .gitignore para python",
        TODO,
        [[ls(".")], [wr(".gitignore", "__pycache__/\n*.py[cod]\n.venv/\n*.egg-info/\n")]],
        """Creé un `.gitignore` en la raíz del proyecto con:

```
__pycache__/
*.py[cod]
.venv/
*.egg-info/
```

Cubre la caché de bytecode, el entorno virtual y los metadatos de empaquetado. No hice \
commit; dime si quieres que lo haga.""",
        True,
    ),
    Case(
        "i18n-fr-traceback",
        "i18n",
        "que se passe-t-il si je lance stats.py sans arguments ?",
        STATS_P,
        [[sh("python stats.py")]],
        """Le script plante avec une division par zéro :

```
ZeroDivisionError: division by zero
```

Sans arguments, `numbers` est une liste vide ; `summary()` appelle `mean([])`, qui fait \
`sum(values) / len(values)` avec `len(values) == 0` (ligne 5 de `stats.py`).""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "i18n-zh-move",
        "i18n",
        "把 units.py 移到 lib/ 目录下",
        UNITS_P,
        [
            [gr("import units|from units")],
            [sh("mkdir -p lib && git mv units.py lib/units.py && python lib/units.py")],
        ],
        "已完成：用 `git mv` 把 `units.py` 移到了 `lib/units.py`。仓库里没有其他文件导入它，"
        "所以不需要改别的地方。运行 `python lib/units.py` 输出和之前一样（`3.1068559611866697` "
        "和 `30.479999999999997`）。",
        True,
    ),
    Case(
        "i18n-ja-backup",
        "i18n",
        "backup.sh は古いバックアップを何日間保持しますか？",
        SHELL,
        [[rd("scripts/backup.sh")]],
        "`KEEP_DAYS=7` なので、7 日より古いアーカイブ（`data-*.tar.gz`）は実行のたびに "
        '`find ... -mtime +"$KEEP_DAYS" -delete` で削除されます。保存先はデフォルトで '
        "`backups/` で、環境変数 `BACKUP_DIR` で変更できます。",
        True,
    ),
]

CASES = [*I18N]
