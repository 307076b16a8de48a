"""Tools from MCP servers (SPEC §12): the adapter behind
:class:`ikgui.domain.tools.ToolHost`, through the official ``mcp`` SDK."""

from ikgui.tools.host import McpHost, SecretSource

__all__ = ["McpHost", "SecretSource"]
