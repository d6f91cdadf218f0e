from papernotes.cli.entry import console

console()
