
		/host:CPU