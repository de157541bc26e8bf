"""The Model Context Protocol server: Tessera's HTTP API contract as MCP tools."""
