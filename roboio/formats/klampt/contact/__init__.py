"""Klamp't contact files: IK objectives (``.ikgoal``), holds (``.hold``), stances
(``.stance``) and grasps (``<Grasp>`` XML). One entry module per file type."""
