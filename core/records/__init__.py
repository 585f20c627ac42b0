"""Records with named fields: layouts from C declarations, field lists and numpy dtypes
(docs/records.md)."""
