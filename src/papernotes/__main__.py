from papernotes.cli.entry import main

main()
