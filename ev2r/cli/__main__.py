from ev2r.cli.main import main

raise SystemExit(main())
