"""What one scrollback item shows and how it looks: the role of each event kind, its label
and text (pure, from ``describe``), and the colours and formats derived from a palette so
light and dark themes both read well.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextTableFormat,
)

from ikgui.domain.events import KNOWN_KINDS, Event, Kind
from ikgui.domain.library.listing import describe
from ikgui.domain.session.elsewhere import written_elsewhere
from ikgui.domain.state.reading import ROLE_LABELS
from ikgui.domain.state.working_prompt import extract_line
from ikgui.domain.text.advice import error_text, headline
from ikgui.ui.transcript import tool_items
from ikgui.ui.transcript.markdown import MarkdownStyle, monospace_family

#: Frame properties: the event id and the role of an item (tests read the role too).
EVENT_ID_PROPERTY = QTextFormat.Property.UserProperty + 1
ROLE_PROPERTY = QTextFormat.Property.UserProperty + 2

#: Pixels kept under a message's frame for its action row (``action_row``).
ACTION_ROOM = 30
BADGE = "(stopped)"
#: A reply that said nothing and only asked for tools.
ASKED_FOR_TOOLS = "(asked to use a tool)"
PLACEHOLDER = "…"
#: A reply's label while another process (``ikgui run``, another machine) writes it.
ELSEWHERE = "being written elsewhere…"
#: A mark reads as a flag line: "⚑ label", or "⚑ mark" when unnamed.
FLAG = "⚑"
#: The lines a command's output shows before "Show all" (a first look that fits the
#: transcript of a small window; see :mod:`ikgui.ui.transcript.command_output`), and
#: the fewest a fold may hide (folding away a line or two would only add a click).
COMMAND_LINES = 12
FOLD_AT_LEAST = 3
NOTICE_KINDS = frozenset(
    {
        Kind.REWIND,
        Kind.FORK,
        Kind.COMMAND,
        Kind.AGENT_KILLED,
        Kind.AGENT_REOPENED,
        Kind.CLEAR,
        Kind.TOOL_APPROVAL,
    }
)
#: Each kind's role: how its item looks (its label is the domain's, ``ROLE_LABELS``).
_ROLES: dict[Kind, str] = {
    Kind.USER: "user",
    Kind.ASSISTANT: "assistant",
    Kind.SYSTEM: "system",
    Kind.TOOL_CALL: "tool",
    Kind.TOOL_RESULT: "tool",
    Kind.ERROR: "error",
    Kind.MARK: "mark",
    Kind.PROMPT_EDIT: "prompt",  # a card (ui/transcript/prompt_cards.py), no label
}
_UNKNOWN = ("unknown", "")
#: The kinds whose long text is folded ("Show all"): a command's output, a tool's.
_FOLDED = frozenset({Kind.COMMAND, Kind.TOOL_RESULT})


def _shown_as(kind: str) -> tuple[str, str]:
    if kind not in KNOWN_KINDS or Kind(kind) not in _ROLES:
        return _UNKNOWN
    return _ROLES[Kind(kind)], ROLE_LABELS.get(kind, "")


@dataclass(frozen=True)
class ItemDisplay:
    """What an item shows, independent of Qt: the safety-relevant part is ``markdown``
    (the text goes through :func:`ikgui.ui.transcript.markdown.render_markdown`, never HTML)."""

    role: str
    label: str
    detail: str
    text: str
    markdown: bool = False
    badge: str = ""
    streaming: bool = False
    #: A long command output: the head shown and how many lines "Show all" adds.
    fold: tuple[str, int] | None = None


def mark_line(event: Event) -> str:
    """A mark as the transcript shows it: ``⚑ label`` (``⚑ mark`` when unnamed); the
    command line keeps ``/mark label`` (``describe``)."""
    label = event.data.get("label")
    return f"{FLAG} {label}" if isinstance(label, str) and label else f"{FLAG} mark"


def folded(text: str) -> tuple[str, int] | None:
    """The first :data:`COMMAND_LINES` lines of a longer output and how many more there
    are; ``None`` when it is short enough to show whole."""
    count = text.count("\n") + 1  # (not split: a tool's output may be 10 MB)
    if count < COMMAND_LINES + FOLD_AT_LEAST:
        return None
    end = -1
    for _ in range(COMMAND_LINES):
        end = text.find("\n", end + 1)
    return text[:end], count - COMMAND_LINES


def role_of(kind: str) -> str:
    if kind in NOTICE_KINDS:
        return "notice"
    return _shown_as(kind)[0]


def display_for(event: Event, text: str | None = None, source: bool = False) -> ItemDisplay:
    """The display of ``event``; ``text`` overrides the body (a reply still growing).

    Unless ``source`` is asked for (what Copy gives): a stopped reply's text has the
    inline marks it left open closed, and a reply that ends with the working prompt it
    drafted (``line`` mode) is shown up to it — the prompt is shown in its panel, and
    the card under the reply says it was drafted."""
    kind = event.kind
    role = role_of(kind)
    shown = describe(event)
    badge = ""
    detail = ""
    streaming = False
    if kind == Kind.ASSISTANT:
        data = event.data
        if data.get("interrupted") and shown.endswith(BADGE):
            shown, badge = shown[: -len(BADGE)].rstrip(" "), BADGE
            if not source and text is None:  # cut mid-**bold**: read as a finished one
                from ikgui.ui.transcript.open_marks import close_open_marks

                shown = close_open_marks(shown)
        streaming = bool(data.get("streaming"))
        if not source and text is None and not streaming and not badge:
            shown = _before_prompt(event, shown)
            if not shown.strip() and data.get("finish_reason") == "tool_calls":
                shown = ASKED_FOR_TOOLS  # (said nothing: asked for its calls, shown next)
        model = data.get("model")
        detail = model if isinstance(model, str) else ""
        if streaming and written_elsewhere(event):  # another process writes it
            detail = f"{detail} · {ELSEWHERE}" if detail else ELSEWHERE
    elif kind == Kind.TOOL_CALL:  # its arguments, as readable JSON (plain text)
        detail, shown = tool_items.call_detail(event), tool_items.call_text(event)
    elif kind == Kind.TOOL_RESULT:  # its whole output, folded when long
        detail, shown = tool_items.result_detail(event), tool_items.result_text(event)
    elif kind == Kind.TOOL_APPROVAL:
        shown = tool_items.approval_text(event)
    elif kind == Kind.ERROR:  # the window's words; the status is in the sentence
        detail = headline(event.data.get("category"), event.data.get("status"))
        shown = error_text(event.content, event.data, "window")
    elif kind == Kind.MARK:
        shown = mark_line(event)
    elif kind == Kind.PROMPT_EDIT and isinstance(event.data.get("prompt"), str):
        shown = event.data["prompt"]  # shown as a card; Copy gives the prompt itself
    if text is not None:
        shown = text
    return ItemDisplay(
        role=role,
        label=_shown_as(kind)[1],
        detail=detail,
        text=shown,
        markdown=kind in (Kind.USER, Kind.ASSISTANT) and not streaming,
        badge=badge,
        streaming=streaming,
        fold=folded(shown) if kind in _FOLDED and text is None else None,
    )


def _before_prompt(event: Event, shown: str) -> str:
    """A ``line``-mode reply up to the prompt it drafted, when that prompt ends it."""
    data = event.data
    if not isinstance(data.get("prompt"), str) or data.get("display_end") is not None:
        return shown
    start = extract_line(shown).label_start
    return shown if start is None else shown[:start].rstrip()


def copy_text(event: Event) -> str:
    """What "Copy" puts on the clipboard: the item's source text, without the badge."""
    return display_for(event, source=True).text


def blend(base: QColor, accent: QColor, amount: float) -> QColor:
    """``amount`` of ``accent`` over ``base`` (0: base, 1: accent), opaque."""

    def mix(b: int, a: int) -> int:
        return round(b * (1 - amount) + a * amount)

    return QColor(
        mix(base.red(), accent.red()),
        mix(base.green(), accent.green()),
        mix(base.blue(), accent.blue()),
    )


_ACCENTS = {
    "user": QColor(59, 130, 246),
    "assistant": QColor(120, 120, 130),
    "tool": QColor(13, 148, 136),
    "error": QColor(220, 38, 38),
    "mark": QColor(124, 58, 237),
    "prompt": QColor(180, 100, 8),
}


@dataclass(frozen=True)
class Colors:
    """The scrollback's colours, all derived from a palette."""

    base: QColor
    text: QColor
    dim: QColor
    link: QColor
    dark: bool

    @classmethod
    def from_palette(cls, palette: QPalette) -> Colors:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        dark = base.lightness() < text.lightness()
        link = palette.color(QPalette.ColorRole.Link)
        if dark and link.lightness() < 140:
            link = QColor(138, 180, 248)
        return cls(base, text, blend(text, base, 0.45), link, dark)

    def accent(self, role: str) -> QColor:
        accent = _ACCENTS.get(role, self.text)
        return blend(accent, self.text, 0.25) if self.dark else accent

    def background(self, role: str) -> QColor | None:
        amounts = {"user": 0.10, "assistant": 0.03, "tool": 0.07, "error": 0.11, "prompt": 0.06}
        amount = amounts.get(role)
        if amount is None:
            return None
        if role == "assistant":
            return blend(self.base, self.text, amount)
        return blend(self.base, self.accent(role), amount * (1.6 if self.dark else 1.0))

    def border(self, role: str) -> QColor:
        amount = 0.35 if role == "error" else 0.16
        source = self.text if role == "assistant" else self.accent(role)
        return blend(self.base, source, amount)

    def markdown(self) -> MarkdownStyle:
        background = blend(self.base, self.text, 0.10 if self.dark else 0.07)
        border = blend(self.base, self.text, 0.16)
        quote = blend(self.text, self.base, 0.3)
        return MarkdownStyle(background, border, self.link, quote, self.dim, dark=self.dark)


def frame_format(role: str, event_id: int, colors: Colors) -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setProperty(EVENT_ID_PROPERTY, event_id)
    fmt.setProperty(ROLE_PROPERTY, role)
    background = colors.background(role)
    if background is not None:
        fmt.setBackground(background)
        fmt.setBorder(1)
        fmt.setBorderBrush(colors.border(role))
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setPadding(10)
    else:
        fmt.setBorder(0)
        fmt.setPadding(2 if role in ("notice", "unknown") else 6)
    fmt.setTopMargin(4)
    fmt.setBottomMargin(ACTION_ROOM if role in ("user", "assistant", "error", "tool") else 4)
    if role == "user":
        fmt.setLeftMargin(56)
    elif role == "prompt":
        fmt.setLeftMargin(32)
        fmt.setRightMargin(32)
    elif role in ("assistant", "tool", "system"):
        fmt.setRightMargin(56)
    return fmt


def label_formats(role: str, base_font: QFont, colors: Colors) -> tuple[QTextCharFormat, ...]:
    """The label's and the detail's character formats."""
    label = QTextCharFormat()
    label.setFontWeight(QFont.Weight.Bold)
    label.setFontPointSize(max(base_font.pointSizeF() * 0.85, 6.0))
    accent = colors.accent(role)
    label.setForeground(accent if role in ("user", "error", "tool") else colors.dim)
    detail = QTextCharFormat()
    detail.setFontPointSize(label.fontPointSize())
    detail.setForeground(colors.dim)
    return label, detail


def body_formats(
    role: str, text: str, base_font: QFont, colors: Colors
) -> tuple[QTextBlockFormat, QTextCharFormat]:
    """Block and character format of a plain-text body (everything but Markdown)."""
    block = QTextBlockFormat()
    char = QTextCharFormat()
    small = max(base_font.pointSizeF() * 0.9, 6.0)
    if role == "tool" or (role == "notice" and "\n" in text):
        char.setFontFamilies([monospace_family()])
        char.setFontPointSize(small)
    if role in ("system", "notice", "unknown"):
        char.setForeground(colors.dim)
    if role == "system":
        char.setFontItalic(True)
    if role in ("notice", "unknown", "mark"):
        char.setFontPointSize(small)
        if role != "unknown" and "\n" not in text:
            block.setAlignment(Qt.AlignmentFlag.AlignHCenter)
    if role == "mark":
        char.setForeground(colors.accent("mark"))
        char.setFontWeight(QFont.Weight.DemiBold)
    if role == "error":
        char.setForeground(blend(colors.text, colors.accent("error"), 0.35))
    return block, char


def badge_format(colors: Colors, base_font: QFont) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(colors.dim)
    fmt.setFontItalic(True)
    fmt.setFontPointSize(max(base_font.pointSizeF() * 0.85, 6.0))
    return fmt


def mark_format(event_id: int, text: str, base_font: QFont) -> QTextTableFormat:
    """A mark is a one-row table: a rule, the label, a rule."""
    fmt = QTextTableFormat()
    fmt.setProperty(EVENT_ID_PROPERTY, event_id)
    fmt.setProperty(ROLE_PROPERTY, "mark")
    fmt.setBorder(0)
    fmt.setCellPadding(0)
    fmt.setCellSpacing(0)
    fmt.setTopMargin(10)
    fmt.setBottomMargin(10)
    fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
    font = QFont(base_font)
    font.setPointSizeF(max(base_font.pointSizeF() * 0.9, 6.0))
    font.setWeight(QFont.Weight.DemiBold)
    width = QFontMetricsF(font).horizontalAdvance(text) + 32
    middle = (
        QTextLength(QTextLength.Type.FixedLength, width)
        if len(text) <= 60
        else QTextLength(QTextLength.Type.PercentageLength, 70)
    )
    variable = QTextLength(QTextLength.Type.VariableLength, 0)
    fmt.setColumnWidthConstraints([variable, middle, variable])
    return fmt


def rule_format(colors: Colors) -> QTextBlockFormat:
    """An empty block drawn as a horizontal rule (Qt draws it in the background colour)."""
    fmt = QTextBlockFormat()
    width = QTextLength(QTextLength.Type.PercentageLength, 100)
    fmt.setProperty(QTextFormat.Property.BlockTrailingHorizontalRulerWidth, width)
    fmt.setBackground(blend(colors.base, colors.accent("mark"), 0.45))
    return fmt
