"""The input and gold files of handrail's own OSWorld tasks (`tasks/<domain>/<id>.json`), made here
instead of downloaded: the tasks need no network.

    python -m handrail.osworld.taskdata DIR     # writes DIR/task_files/<id>/<name> for every task

A task names its files by paths relative to the folder desktop-env runs in (`"local_path":
"task_files/<id>/input.xlsx"` in an `upload_file` step), as OSWorld's own tasks name theirs
relative to its checkout; run the harness from DIR. Gold files reach the desktop only when the task
is scored, through the evaluator's `postconfig`, under `/home/user/.cache/gold/`, and are read back
with the `vm_file` getter (desktop-env's `cloud_file` would download them).

Spreadsheets, documents and presentations are written with openpyxl, python-docx and python-pptx,
which desktop-env's metrics read them with.
"""

from __future__ import annotations

import datetime
import io
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from . import image

TASKS_DIR = Path(__file__).parent / "tasks"
# OSWorld's own published tasks that run here unchanged (see published/README.md): no files to make.
PUBLISHED_DIR = Path(__file__).parent / "published"
FILES_DIR = "task_files"  # under the folder the harness runs in
SHARED = "shared"  # task_files/shared/: files several tasks upload

# A fixed time, inside the documents and on their zip entries: the generator writes the same bytes
# every time.
_WHEN = datetime.datetime(2024, 1, 2, 3, 4, 6)

Builder = Callable[[], dict[str, bytes]]
_BUILDERS: dict[str, Builder] = {}


def files(task_id: str) -> Callable[[Builder], Builder]:
    """Registers the function making task `task_id`'s files ({name: bytes})."""

    def register(build: Builder) -> Builder:
        if task_id in _BUILDERS:
            raise ValueError(f"two file builders for task {task_id}")
        _BUILDERS[task_id] = build
        return build

    return register


def task_paths(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    """Every task file, domain by domain: handrail's own, then OSWorld's published ones (when
    `tasks_dir` is the default)."""
    paths = sorted(tasks_dir.glob("*/*.json"))
    if tasks_dir == TASKS_DIR:
        paths += sorted(PUBLISHED_DIR.glob("*/*.json"))
    return paths


def load(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def local_paths(task: dict) -> Iterator[str]:
    """The host-side files a task's `upload_file` steps (set-up and postconfig) read."""
    steps = list(task.get("config", [])) + list(task.get("evaluator", {}).get("postconfig", []))
    for step in steps:
        if step.get("type") == "upload_file":
            for f in step["parameters"]["files"]:
                yield f["local_path"]


def generate(root: Path | str) -> list[Path]:
    """Writes every task's files under `root/task_files/`; the paths written."""
    root = Path(root)
    written = []
    for task_id, build in [(SHARED, _shared), *sorted(_BUILDERS.items())]:
        folder = root / FILES_DIR / task_id
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in build().items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written.append(path)
    return written


# ---- file formats ------------------------------------------------------------------------------

def _stable_zip(data: bytes) -> bytes:
    """The same zip (xlsx, docx, pptx) with every entry, and the document's modification time
    (openpyxl sets it to now while saving), dated `_WHEN`."""
    when = _WHEN.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=_WHEN.timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            content = src.read(info)
            if info.filename == "docProps/core.xml":
                content = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)", rb"\g<1>" + when + rb"\g<2>",
                                 content)
            dst.writestr(entry, content)
    return out.getvalue()


def text(s: str) -> bytes:
    return s.encode("utf-8")


def xlsx(sheets: dict[str, Sequence[Sequence]]) -> bytes:
    """A workbook with these sheets (rows of values), in this order."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(list(row))
    wb.properties.created = wb.properties.modified = _WHEN
    out = io.BytesIO()
    wb.save(out)
    return _stable_zip(out.getvalue())


def csv_text(rows: Sequence[Sequence]) -> bytes:
    return "".join(",".join(str(v) for v in row) + "\n" for row in rows).encode("utf-8")


def docx(paragraphs: Sequence[str], *, table: Optional[Sequence[Sequence[str]]] = None) -> bytes:
    """A document of these paragraphs (and a table after them)."""
    from docx import Document

    doc = Document()
    for p in paragraphs:
        doc.add_paragraph(p)
    if table:
        t = doc.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                t.cell(r, c).text = value
    doc.core_properties.created = doc.core_properties.modified = _WHEN
    out = io.BytesIO()
    doc.save(out)
    return _stable_zip(out.getvalue())


def pptx(slides: Sequence[tuple[str, Sequence[str]]]) -> bytes:
    """A presentation: each slide a title and bullet lines (title-only when there are none)."""
    from pptx import Presentation

    prs = Presentation()
    for title, lines in slides:
        slide = prs.slides.add_slide(prs.slide_layouts[1 if lines else 5])
        slide.shapes.title.text = title
        if lines:
            body = slide.placeholders[1].text_frame
            body.text = lines[0]
            for line in lines[1:]:
                body.add_paragraph().text = line
    prs.core_properties.created = prs.core_properties.modified = _WHEN
    out = io.BytesIO()
    prs.save(out)
    return _stable_zip(out.getvalue())


# ---- files several tasks use -------------------------------------------------------------------

# LibreOffice's profile as OSWorld's image has it (see `image`): our tasks that open LibreOffice
# upload it too, so they run the same on a desktop service that was not given it.
LIBREOFFICE_PROFILE = image.LIBREOFFICE_PROFILE


def _shared() -> dict[str, bytes]:
    return {"registrymodifications.xcu": text(LIBREOFFICE_PROFILE)}


# ---- the tasks' files --------------------------------------------------------------------------
# One builder per task that uploads files, grouped by domain.

# ---- os

@files("7a82229d-273d-4943-a5e6-9e0d34304902")  # rename notes.txt
def _os_rename():
    return {"notes.txt": text("Call the plumber.\nBuy stamps.\n")}


@files("f3ce866b-69fc-4e6f-8e4a-245a553957d5")  # chmod +x run.sh
def _os_chmodx():
    return {"run.sh": text("#!/bin/sh\necho ready\n")}


@files("a39a5445-eb7e-409c-99ee-691a0f93777f")  # copy *.txt from inbox to archive
def _os_copytxt():
    return {"inbox/a.txt": text("first\n"), "inbox/b.txt": text("second\n"), "inbox/c.log": text("log line\n")}


@files("2ccae280-2dc6-484a-8f28-4b33a1be0732")  # chmod 600 secret.txt
def _os_chmod600():
    return {"secret.txt": text("the code is 4711\n")}


_LOG = "".join(f"2024-01-0{1 + i % 9} 10:{i:02d}:00 request {i} served\n" for i in range(37))


@files("9dbc075e-f65d-4590-aaf8-08371ab9a6e0")  # count the lines of data/log.txt
def _os_countlines():
    return {"log.txt": text(_LOG), "gold/count.txt": text(f"{_LOG.count(chr(10))}\n")}


@files("d4fb23bd-1585-4c36-9d78-333393ce79fc")  # tar -czf report.tar.gz report
def _os_tar():
    return {"report/summary.txt": text("Q1 went well.\n"), "report/data.csv": csv_text([["q", "v"], [1, 10]])}


@files("cb939113-f48b-47de-a11d-2cb4dc9ed02d")  # ln -s releases/v2 latest
def _os_symlink():
    return {"releases/v1/VERSION": text("1.4.2\n"), "releases/v2/VERSION": text("2.0.0\n")}


_CONF = "# app settings\nhost=127.0.0.1\nport=8000\nworkers=4\n# the admin port stays\nadmin_port=9000\n"


@files("f1538d01-f269-45e7-8981-39c1943a2d87")  # port=8000 -> 8080 in app.conf
def _os_sed():
    return {"app.conf": text(_CONF), "gold/app.conf": text(_CONF.replace("port=8000", "port=8080"))}


# ---- libreoffice_calc

_INVENTORY = [["Item", "Qty"], ["Bolts", 40], ["Nuts", 35], ["Washers", 25], ["Screws", 30], ["Rivets", 20]]
_SALES = [["Region", "Q1", "Q2"], ["North", 120, 135], ["South", 98, 104], ["East", 143, 150], ["West", 87, 95]] + \
    [[f"District {i}", 10 + i, 12 + i] for i in range(1, 41)]


@files("c905ea34-0a2e-4aae-9c59-b898232dc397")  # SUM in B7
def _calc_sum():
    return {"inventory.xlsx": xlsx({"Sheet1": _INVENTORY}),
            "gold/inventory.xlsx": xlsx({"Sheet1": _INVENTORY + [[None, 150]]})}


@files("8b29f7c7-7d93-49a3-a05c-17a353e65b2d")  # a row for Gaskets
def _calc_addrow():
    return {"inventory.xlsx": xlsx({"Sheet1": _INVENTORY}),
            "gold/inventory.xlsx": xlsx({"Sheet1": _INVENTORY + [["Gaskets", 15]]})}


_ORDERS = [["Order", "Price", "Qty"], ["A-100", 2.5, 4], ["A-101", 10, 3], ["A-102", 7.25, 8], ["A-103", 1.2, 50]]


@files("055adbfd-3525-4dc7-86e3-c83a3dda691d")  # Total = Price * Qty
def _calc_total_col():
    gold = [_ORDERS[0] + ["Total"]] + [row + [row[1] * row[2]] for row in _ORDERS[1:]]
    return {"orders.xlsx": xlsx({"Sheet1": _ORDERS}), "gold/orders.xlsx": xlsx({"Sheet1": gold})}


@files("19c15dc5-033f-49b2-ab7b-9c519ceddc5c")  # rename Sheet1 to Sales
def _calc_rename_sheet():
    return {"sales.xlsx": xlsx({"Sheet1": _SALES}), "gold/sales.xlsx": xlsx({"Sales": _SALES})}


@files("86b30c2f-c1a6-4e1f-b453-d2820a379e22")  # bold header row
def _calc_bold_header():
    return {"sales.xlsx": xlsx({"Sheet1": _SALES})}


@files("33dd9de9-cf5e-41cc-9c49-cce2428a1b90")  # freeze the first row
def _calc_freeze():
    import openpyxl

    gold = openpyxl.load_workbook(io.BytesIO(xlsx({"Sheet1": _SALES})))
    gold["Sheet1"].freeze_panes = "A2"
    out = io.BytesIO()
    gold.save(out)
    return {"sales.xlsx": xlsx({"Sheet1": _SALES}), "gold/sales.xlsx": _stable_zip(out.getvalue())}


_STAFF = [["Name", "Team", "Since"], ["Mira", "Ops", 2019], ["Anton", "Dev", 2021], ["Lena", "Dev", 2018],
          ["Björn", "Sales", 2022], ["Chen", "Ops", 2020], ["Dara", "Sales", 2017]]


@files("7645914c-edea-4fd0-9f39-7fd8a5774080")  # sort by Name
def _calc_sort():
    gold = [_STAFF[0]] + sorted(_STAFF[1:], key=lambda r: r[0])
    return {"staff.xlsx": xlsx({"Sheet1": _STAFF}), "gold/staff.xlsx": xlsx({"Sheet1": gold})}


@files("89116ce4-1b75-4f4c-92c2-515c5e89fc64")  # C2:C5 as 0.00%
def _calc_percent():
    rows = [["Item", "Cost", "Share"], ["Rent", 1200, 0.48], ["Food", 650, 0.26], ["Travel", 400, 0.16],
            ["Other", 250, 0.1]]
    return {"budget.xlsx": xlsx({"Sheet1": rows})}


_VISITS = [["month", "visits"], ["2024-01", 320], ["2024-02", 365]]


@files("aaad7045-2630-4f18-b12a-b7057c82aca9")  # a row at the end of visits.csv
def _calc_csv():
    return {"visits.csv": csv_text(_VISITS), "gold/visits.csv": csv_text(_VISITS + [["2024-03", 410]])}


_STOCK = [["Part", "Shelf A", "Shelf B"], ["Hinge", 12, "n/a"], ["Latch", "n/a", 7], ["Knob", 30, 18],
          ["Hook", "n/a", "n/a"]]


@files("6376ed56-facd-40ee-91bd-7d4f3d3d0f03")  # n/a -> 0
def _calc_replace():
    gold = [_STOCK[0]] + [[v if v != "n/a" else 0 for v in row] for row in _STOCK[1:]]
    return {"stock.xlsx": xlsx({"Sheet1": _STOCK}), "gold/stock.xlsx": xlsx({"Sheet1": gold})}


@files("62b09d07-92d6-4109-87dc-8a336867c303")  # delete the Rivets row
def _calc_delete_row():
    return {"inventory.xlsx": xlsx({"Sheet1": _INVENTORY}),
            "gold/inventory.xlsx": xlsx({"Sheet1": [r for r in _INVENTORY if r[0] != "Rivets"]})}


# ---- libreoffice_writer

_LETTER = ["Dear Ms. Reyes,",
           "Thank you for the colour samples. The colour of the second swatch matches our logo.",
           "Could you send two more sheets in that colour by Friday?",
           "Kind regards,", "Tom"]
_REPORT = ["Quarterly Report", "Sales grew by eight percent over the quarter, led by the northern region.",
           "Costs stayed flat; the new supplier contract starts in April."]


@files("1f4d9501-c38b-4050-9ac9-cbf9dd71bffb")  # colour -> color
def _writer_replace():
    return {"letter.docx": docx(_LETTER),
            "gold/letter.docx": docx([p.replace("colour", "color") for p in _LETTER])}


@files("81bb05da-b455-4266-a90e-b04d1694271f")  # a P.S. paragraph
def _writer_append():
    return {"letter.docx": docx(_LETTER), "gold/letter.docx": docx(_LETTER + ["P.S. The samples are attached."])}


@files("9d8f2361-dd57-4407-b8a6-e124d2bdfb55")  # center the title
def _writer_center():
    return {"report.docx": docx(_REPORT)}


@files("6b1a25c2-747d-4288-be81-6df8870416c3")  # page break before paragraph 2
def _writer_pagebreak():
    return {"report.docx": docx(_REPORT)}


_TODO = ["To do", "Book the venue.", "Send the invitations.", "Order the cake."]


@files("6d144b89-a29c-4db5-8b65-f8b1ae60f940")  # strike the last paragraph through
def _writer_strike():
    return {"todo.docx": docx(_TODO), "gold/todo.docx": docx(_TODO)}


_PLAN = ["Release plan", "The week ahead:"]


@files("0344ef08-5429-4572-9f6c-d30bded3511f")  # a 2x3 table
def _writer_table():
    return {"plan.docx": docx(_PLAN),
            "gold/plan.docx": docx(_PLAN, table=[["Day", "Task"], ["Mon", "Draft"], ["Tue", "Review"]])}


_ESSAY = ["On Bridges", "Bridges join what rivers part; they are the oldest argument for cooperation.",
          "Every span is a bet on the future: that both banks will still want each other."]


@files("a439e69d-7d8b-48d8-8196-b308f8a78241")  # double line spacing
def _writer_spacing():
    from docx import Document

    gold = Document(io.BytesIO(docx(_ESSAY)))
    for p in gold.paragraphs:
        p.paragraph_format.line_spacing = 2.0
    out = io.BytesIO()
    gold.save(out)
    return {"essay.docx": docx(_ESSAY), "gold/essay.docx": _stable_zip(out.getvalue())}


@files("ceb3bf55-1722-4389-9fa2-f0e642802108")  # two paragraphs in an empty memo
def _writer_memo():
    return {"memo.docx": docx([]), "gold/memo.docx": docx(["Team meeting moved to 3 pm.", "Room 204."])}


# ---- libreoffice_impress

_ROADMAP = [("Roadmap 2024", ["Ship the beta", "Hire two engineers"]), ("Risks", ["Budget", "Timeline"]), ("Thanks", [])]


@files("c259f455-93e9-4610-b790-3136f803fe79")  # retitle slide 1
def _impress_title():
    return {"roadmap.pptx": pptx(_ROADMAP), "gold/roadmap.pptx": pptx([("Roadmap 2025", _ROADMAP[0][1])] + _ROADMAP[1:])}


@files("f6b5d5ed-7e2e-4cee-8021-2ffbce4a7d16")  # duplicate slide 2
def _impress_duplicate():
    return {"roadmap.pptx": pptx(_ROADMAP), "gold/roadmap.pptx": pptx(_ROADMAP[:2] + _ROADMAP[1:])}


@files("8ac9cf01-6964-488b-ab53-0d3242914896")  # portrait
def _impress_portrait():
    return {"roadmap.pptx": pptx(_ROADMAP)}


@files("aeffa977-9fad-419f-b206-583f58af7902")  # strike the first bullet of slide 2
def _impress_strike():
    return {"roadmap.pptx": pptx(_ROADMAP)}


@files("7c5e4476-49a6-4fb6-b9eb-2ce0563e4421")  # delete the last slide
def _impress_delete():
    return {"roadmap.pptx": pptx(_ROADMAP), "gold/roadmap.pptx": pptx(_ROADMAP[:2])}


# ---- chrome

_MENU = [["item", "price"], ["Sourdough loaf", "6.50"], ["Croissant", "2.80"], ["Cinnamon roll", "3.20"]]
_BAKERY = {
    "site/index.html": text("""<!doctype html>
<html><head><meta charset="utf-8"><title>Harbor Bakery</title></head>
<body style="font-size:20px">
<h1>Harbor Bakery</h1>
<p>Fresh bread every morning since 1987.</p>
<p><a href="hours.html">Opening hours</a></p>
<p><a href="menu.csv" download>Download our menu (CSV)</a></p>
</body></html>
"""),
    "site/hours.html": text("""<!doctype html>
<html><head><meta charset="utf-8"><title>Opening hours - Harbor Bakery</title></head>
<body style="font-size:20px"><h1>Opening hours</h1><p>Tuesday to Sunday, 7:00 to 15:00.</p></body></html>
"""),
    "site/menu.csv": csv_text(_MENU),
}


@files("5c891b6b-eca4-4059-a06f-71c5db95eb4b")  # bookmark the page
def _chrome_bookmark():
    return dict(_BAKERY)


@files("d98a8a66-4c94-4ba8-a49a-09f95139154b")  # download the menu
def _chrome_download():
    return {**_BAKERY, "gold/menu.csv": csv_text(_MENU)}


@files("e9de56bd-cf6b-48d0-8be7-0f569a324366")  # a bookmarks-bar folder
def _chrome_folder():
    return dict(_BAKERY)


@files("3ecd4ac7-6f98-4263-9d74-f7386bfb2366")  # font size Large
def _chrome_font_size():
    return dict(_BAKERY)


@files("e29836b2-8b1d-444c-837e-607c908f2db0")  # profile name
def _chrome_profile_name():
    return dict(_BAKERY)


# ---- multi_apps

_SALES_CSV = [["region", "units"], ["North", 120], ["South", 98], ["East", 143]]


@files("9a07e1ef-b37f-4651-be13-edf9de2498cd")  # sales.csv -> sales.xlsx
def _multi_csv_xlsx():
    return {"sales.csv": csv_text(_SALES_CSV), "gold/sales.xlsx": xlsx({"sales": _SALES_CSV})}


_NOTES = ["Action items:", "Ask finance for the Q2 numbers.", "Book the review for Thursday."]


@files("fd36d65c-5eec-4221-b91f-4fffac6eb351")  # notes.txt into report.docx
def _multi_mousepad_writer():
    return {"notes.txt": text("\n".join(_NOTES) + "\n"), "report.docx": docx(_REPORT),
            "gold/report.docx": docx(_REPORT + _NOTES)}


@files("856aa165-6176-4e25-a5f7-63755795234b")  # count the logs into B1
def _multi_terminal_calc():
    logs = {f"logs/{n}": text(f"{n} started\n") for n in ("api.log", "db.log", "web.log", "worker.log")}
    return {**logs, "logs/notes.txt": text("not a log\n"),
            "summary.xlsx": xlsx({"Sheet1": [["Log files", None], ["Checked by", "ops"]]})}


_EXPENSES = [["Item", "Amount"], ["Train", 48.5], ["Hotel", 210], ["Meals", 63.25], ["Taxi", 22]]


@files("63893ff2-d6b4-4358-b863-59bac5759fc9")  # the total into total.txt
def _multi_calc_text():
    return {"expenses.xlsx": xlsx({"Sheet1": _EXPENSES}), "gold/total.txt": text("343.75\n")}


@files("e8e8b4ad-35d4-4aed-969a-b780f204244d")  # report.pdf into outbox
def _multi_writer_pdf():
    return {"outbox/README": text("Files to send.\n"), "report.docx": docx(_REPORT)}


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m handrail.osworld.taskdata DIR", file=sys.stderr)
        return 2
    written = generate(argv[0])
    print(f"{len(written)} files under {Path(argv[0]) / FILES_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
