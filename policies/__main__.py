from policies.cli import run

run()
