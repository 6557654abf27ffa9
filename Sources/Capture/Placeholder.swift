// Work in progress: replaced by the module's sources.
