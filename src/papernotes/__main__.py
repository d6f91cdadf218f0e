from papernotes.cli import run

run()
