"""One module per workspace page; ``entrypoints.web.registry`` lists them."""
