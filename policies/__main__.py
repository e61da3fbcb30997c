from policies.cli import main

raise SystemExit(main())
