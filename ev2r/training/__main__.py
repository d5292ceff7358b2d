from ev2r.training.trainer import main

raise SystemExit(main())
