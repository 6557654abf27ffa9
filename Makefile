# Convenience targets; each calls a script in scripts/ (the scripts are the source of truth).
.PHONY: test demo fuzz sanitize sanitize-address sanitize-thread bench

test:
	scripts/test.sh

demo:
	scripts/demo.sh

fuzz:
	scripts/fuzz.sh

sanitize: sanitize-address sanitize-thread

sanitize-address:
	scripts/sanitize.sh address

sanitize-thread:
	scripts/sanitize.sh thread

bench:
	scripts/bench.sh
