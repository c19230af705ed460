export { createLeadServiceMcpServer, type LeadServiceMcpOptions } from './server';
export { serveHttp, MCP_PATH } from './http';
export { TOOL_OPERATIONS, type OperationTool, type ToolParameter } from './tool-operations';
