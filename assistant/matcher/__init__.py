"""The router's fast path: the pack's templates and an embedding head answer confident requests
without the router model (``core.match_request``); everything else goes to the model as before."""
