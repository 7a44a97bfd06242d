"""The ways a request becomes tool calls: router (default), native tool calling, small model."""
