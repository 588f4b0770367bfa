from omp.cli.main import main

raise SystemExit(main())
